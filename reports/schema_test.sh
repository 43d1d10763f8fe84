#!/usr/bin/env bash
# CTest `report.schema`: report.json of the fixture runs validates against
# reports/report.schema.json (Debian's python3-jsonschema, from scripts/install-deps.sh).
#
#   reports/schema_test.sh RDMACHECK_BIN TESTDATA_DIR OUT_DIR
set -euo pipefail
bin=$1 data=$2 out=$3
schema=$(dirname "$0")/report.schema.json
rm -rf "$out"
"$bin" report --out="$out" "$data/rxe0" "$data/siw0" >/dev/null
py=/usr/bin/python3  # Debian's, where python3-jsonschema is
[ -x "$py" ] || py=python3
"$py" - "$schema" "$out/report.json" <<'PY'
import json, sys
import jsonschema
schema, report = (json.load(open(p)) for p in sys.argv[1:3])
jsonschema.Draft202012Validator.check_schema(schema)
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(report), key=lambda e: list(e.path))
for e in errors:
    print("FAILED: report.json", "/".join(map(str, e.path)) or "(top)", ":", e.message)
if errors:
    sys.exit(1)
print("report.schema: report.json matches", sys.argv[1])
PY
