// Validates Kubernetes manifests offline against the Kubernetes API schema, as carried by
// the npm package kubernetes-models (the upstream OpenAPI definitions compiled into JSON
// schema validators: required fields, types, formats, enums), with no cluster.
//
//   node ci/kubernetes/validate.mjs NODE_MODULES FILE.yaml...
//
// NODE_MODULES: where ci/kubernetes/package.json was installed (scripts/install-deps.sh:
// /opt/rdmacheck/kubernetes-schema/node_modules). Prints one line per object; exit 0 all
// valid, 1 an object is invalid (or of a kind the schema does not know), 2 unusable input.
// Not checked (the schema allows them): fields the API does not have — a misspelled
// optional field passes, as with kubeconform without -strict.
import { readFileSync, existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [modules, ...files] = process.argv.slice(2);
if (!modules || files.length === 0) {
  console.error("usage: node validate.mjs NODE_MODULES FILE.yaml...");
  process.exit(2);
}
if (!existsSync(join(modules, "kubernetes-models", "package.json"))) {
  console.error(`validate.mjs: no kubernetes-models under ${modules} (run scripts/install-deps.sh)`);
  process.exit(2);
}
const load = (path) => import(pathToFileURL(join(modules, path)).href);
const { parseAllDocuments } = await load("yaml/dist/index.js");

let invalid = 0;
for (const file of files) {
  let documents;
  try {
    documents = parseAllDocuments(readFileSync(file, "utf8"));
  } catch (e) {
    console.error(`validate.mjs: ${file}: ${e.message}`);
    process.exit(2);
  }
  for (const document of documents) {
    if (document.errors.length > 0) {
      console.error(`validate.mjs: ${file}: not YAML: ${document.errors[0].message}`);
      process.exit(2);
    }
    const object = document.toJS();
    if (object === null) continue;
    const where = `${file}: ${object.kind}/${object.metadata?.name}`;
    // "apps/v1" + "DaemonSet" -> kubernetes-models/apps/v1/DaemonSet.js; core "v1" -> v1/...
    const model = join("kubernetes-models", String(object.apiVersion), `${object.kind}.js`);
    if (!existsSync(join(modules, model))) {
      console.log(`${where}: INVALID: no such kind in the Kubernetes API (${object.apiVersion} ${object.kind})`);
      invalid++;
      continue;
    }
    const Model = (await load(model))[object.kind];
    try {
      new Model(object).validate();
      console.log(`${where}: valid`);
    } catch (e) {
      console.log(`${where}: INVALID: ${e.message}`);
      invalid++;
    }
  }
}
process.exit(invalid > 0 ? 1 : 0);
