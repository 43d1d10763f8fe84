// rdmacheck report.html: filters, sorting and counts for the test matrix. Built into the
// page (reports/report_html.cc); the page is complete without it. The filter state is kept
// in the address as #tests?suite=S&status=ST&device=N&q=TEXT&diff=1&sort=KEY:asc|desc.
(function () {
  'use strict';
  var table = document.getElementById('matrix');
  if (!table) return;
  var tbody = table.tBodies[0];
  var rows = Array.prototype.slice.call(tbody.querySelectorAll('tr.row'));
  var groups = Array.prototype.slice.call(tbody.querySelectorAll('tr.group'));
  var devices = parseInt(table.getAttribute('data-devices'), 10) || 0;
  var labels = Array.prototype.map.call(table.tHead.querySelectorAll('th[data-col]'), function (th) {
    return th.textContent;
  });
  var f = {
    suite: document.getElementById('f-suite'),
    status: document.getElementById('f-status'),
    device: document.getElementById('f-device'),
    q: document.getElementById('f-q'),
    diff: document.getElementById('f-diff')
  };
  var summary = document.getElementById('filter-summary');
  var STATUSES = ['pass', 'fail', 'skip', 'xfail', 'xpass', 'blocked', 'none'];
  var WORDS = { pass: 'passed', fail: 'failed', skip: 'skipped', xfail: 'xfail', xpass: 'xpass', blocked: 'blocked', none: 'not run' };
  var RANK = { fail: 0, xpass: 1, xfail: 2, blocked: 3, skip: 4, pass: 5, none: 6 };
  var sort = { key: 'order', dir: 1 };

  function statusOf(row, col) {
    var cell = row.querySelector('td[data-col="' + col + '"]');
    return cell ? cell.getAttribute('data-status') : 'none';
  }

  function statusMatches(wanted, status) {
    if (wanted === 'problem') return status === 'fail' || status === 'xpass';
    return status === wanted;
  }

  function rowVisible(row) {
    if (f.suite.value && row.getAttribute('data-suite') !== f.suite.value) return false;
    if (f.diff.checked && row.getAttribute('data-differs') !== '1') return false;
    var q = f.q.value.trim().toLowerCase();
    if (q && row.cells[1].textContent.toLowerCase().indexOf(q) < 0) return false;
    if (!f.status.value) return true;
    var cols = f.device.value !== '' ? [f.device.value] : [];
    if (!cols.length) for (var d = 0; d < devices; d++) cols.push(String(d));
    return cols.some(function (c) { return statusMatches(f.status.value, statusOf(row, c)); });
  }

  function compare(a, b) {
    var k = sort.key, x, y;
    if (k === 'order') {
      x = +a.getAttribute('data-order'); y = +b.getAttribute('data-order');
    } else if (k === 'suite') {
      x = a.getAttribute('data-suite'); y = b.getAttribute('data-suite');
    } else if (k === 'test') {
      x = a.cells[1].textContent; y = b.cells[1].textContent;
    } else {
      var col = k.slice(1);
      x = RANK[statusOf(a, col)]; y = RANK[statusOf(b, col)];
    }
    if (x < y) return -sort.dir;
    if (x > y) return sort.dir;
    return (+a.getAttribute('data-order')) - (+b.getAttribute('data-order'));
  }

  function applySort() {
    var grouped = sort.key === 'order' || sort.key === 'suite';
    var ordered = rows.slice().sort(compare);
    if (grouped) {
      // Keep each suite's group title above its rows.
      var bySuite = {};
      ordered.forEach(function (r) { (bySuite[r.getAttribute('data-suite')] = bySuite[r.getAttribute('data-suite')] || []).push(r); });
      var suiteOrder = [];
      ordered.forEach(function (r) { var s = r.getAttribute('data-suite'); if (suiteOrder.indexOf(s) < 0) suiteOrder.push(s); });
      suiteOrder.forEach(function (s) {
        groups.forEach(function (g) { if (g.getAttribute('data-suite') === s) tbody.appendChild(g); });
        bySuite[s].forEach(function (r) { tbody.appendChild(r); });
      });
    } else {
      ordered.forEach(function (r) { tbody.appendChild(r); });
    }
    Array.prototype.forEach.call(table.tHead.querySelectorAll('th[data-sort]'), function (th) {
      var on = th.getAttribute('data-sort') === sort.key;
      th.setAttribute('aria-sort', on ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none');
    });
    return grouped;
  }

  function apply() {
    var grouped = applySort();
    var visible = 0;
    var counts = [];
    for (var d = 0; d < devices; d++) counts.push({});
    var shownSuites = {};
    rows.forEach(function (row) {
      var show = rowVisible(row);
      row.classList.toggle('hidden', !show);
      if (!show) return;
      visible++;
      shownSuites[row.getAttribute('data-suite')] = true;
      for (var d = 0; d < devices; d++) {
        var s = statusOf(row, String(d));
        counts[d][s] = (counts[d][s] || 0) + 1;
      }
    });
    groups.forEach(function (g) { g.classList.toggle('hidden', !grouped || !shownSuites[g.getAttribute('data-suite')]); });
    // One device chosen: show only its column.
    Array.prototype.forEach.call(table.querySelectorAll('[data-col]'), function (cell) {
      cell.classList.toggle('hidden', f.device.value !== '' && cell.getAttribute('data-col') !== f.device.value);
    });
    var parts = [];
    for (var i = 0; i < devices; i++) {
      if (f.device.value !== '' && String(i) !== f.device.value) continue;
      var words = STATUSES.filter(function (s) { return counts[i][s]; }).map(function (s) {
        return '<span class="pill st-' + s + '" data-count="' + i + '-' + s + '">' + counts[i][s] + ' ' + WORDS[s] + '</span>';
      });
      parts.push('<span class="dev">' + escapeHtml(labels[i]) + ':</span> ' + (words.join(' ') || 'none'));
    }
    summary.innerHTML = 'Showing <span id="visible-count">' + visible + '</span> of ' + rows.length + ' tests' +
      (parts.length ? ' — ' + parts.join(' · ') : '') + '.';
    summary.setAttribute('data-visible', String(visible));
    writeHash();
  }

  function escapeHtml(s) {
    return s.replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; });
  }

  function state() {
    var p = [];
    if (f.suite.value) p.push('suite=' + encodeURIComponent(f.suite.value));
    if (f.status.value) p.push('status=' + encodeURIComponent(f.status.value));
    if (f.device.value !== '') p.push('device=' + encodeURIComponent(labels[+f.device.value]));
    if (f.q.value) p.push('q=' + encodeURIComponent(f.q.value));
    if (f.diff.checked) p.push('diff=1');
    if (sort.key !== 'order') p.push('sort=' + sort.key + ':' + (sort.dir > 0 ? 'asc' : 'desc'));
    return p.join('&');
  }

  var applying = false;
  function writeHash() {
    if (applying) return;
    var s = state();
    var want = s ? '#tests?' + s : '';
    if (want === location.hash || (!want && location.hash.indexOf('#tests?') !== 0)) return;
    try { history.replaceState(null, '', want || location.pathname + location.search); } catch (e) { /* file:// in some browsers */ }
  }

  function setSelect(sel, value) {
    for (var i = 0; i < sel.options.length; i++) {
      if (sel.options[i].value === value || sel.options[i].text === value) { sel.selectedIndex = i; return; }
    }
  }

  // Reads "#tests?..." (or a data-filter link's "a=b&c=d") into the controls.
  function readState(query) {
    f.suite.value = ''; f.status.value = ''; f.device.value = ''; f.q.value = ''; f.diff.checked = false;
    sort = { key: 'order', dir: 1 };
    query.split('&').forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf('=');
      var k = i < 0 ? kv : kv.slice(0, i);
      var v = i < 0 ? '' : decodeURIComponent(kv.slice(i + 1).replace(/\+/g, ' '));
      if (k === 'suite') setSelect(f.suite, v);
      else if (k === 'status') setSelect(f.status, v);
      else if (k === 'device') setSelect(f.device, v);
      else if (k === 'q') f.q.value = v;
      else if (k === 'diff') f.diff.checked = v !== '0' && !f.diff.disabled;
      else if (k === 'sort') {
        var kd = v.split(':');
        sort = { key: kd[0] || 'order', dir: kd[1] === 'desc' ? -1 : 1 };
      }
    });
  }

  function fromHash() {
    var h = location.hash;
    if (h.indexOf('#tests?') !== 0) return false;
    applying = true;
    readState(h.slice('#tests?'.length));
    apply();
    applying = false;
    return true;
  }

  ['suite', 'status', 'device', 'diff'].forEach(function (k) { f[k].addEventListener('change', apply); });
  f.q.addEventListener('input', apply);
  document.getElementById('f-reset').addEventListener('click', function () { readState(''); apply(); });
  Array.prototype.forEach.call(table.tHead.querySelectorAll('th[data-sort]'), function (th) {
    th.addEventListener('click', function () {
      var key = th.getAttribute('data-sort');
      sort = sort.key === key ? { key: key, dir: -sort.dir } : { key: key, dir: 1 };
      apply();
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('a[data-filter]'), function (a) {
    a.addEventListener('click', function (e) {
      e.preventDefault();
      readState(a.getAttribute('data-filter'));
      apply();
      document.getElementById('tests').scrollIntoView();
    });
  });
  window.addEventListener('hashchange', fromHash);
  if (!fromHash()) apply();
  if (location.hash.indexOf('#tests?') === 0) document.getElementById('tests').scrollIntoView();
  document.body.setAttribute('data-report-ready', '1');
})();
