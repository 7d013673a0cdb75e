// The /ops page: polls /ops/data (cumulative counts) and charts the differences between samples.
(() => {
  'use strict';
  const HISTORY = 90;
  const every = Math.min(60, Math.max(1, Number(new URLSearchParams(location.search).get('every')) || 2)) * 1000;
  const CACHES = ['definitions', 'statements', 'pdf'];
  const MISS_REASONS = ['cold', 'expired', 'bypass', 'invalidated', 'purged', 'store_down'];
  const MISS_COLORS = { cold: '#54a0ff', expired: '#feca57', bypass: '#c8d6e5', invalidated: '#10ac84', purged: '#5f27cd', store_down: '#ee5253' };
  const COLORS = { definitions: '#2e86de', statements: '#10ac84', pdf: '#ee5253', p50: '#54a0ff', p95: '#ff9f43', ok: '#10ac84', error: '#ee5253', timeout: '#f368e0', errors: '#ee5253' };
  // Counters are per process: one history per replica (and a restarted one starts afresh).
  // Kept in this tab's sessionStorage, so a reload (or a deploy of the page) keeps the charts.
  const STORED = 'sgw-ops-histories';
  const histories = restore();
  let samples = [];

  /** The histories this tab kept, without those too old to chart next to a new sample. */
  function restore() {
    try {
      const kept = JSON.parse(sessionStorage.getItem(STORED) ?? '[]');
      const oldest = Date.now() - HISTORY * every;
      return new Map(kept.filter(([, list]) => Array.isArray(list) && list.length && list[list.length - 1].at > oldest));
    } catch {
      return new Map();
    }
  }

  function keep() {
    try {
      sessionStorage.setItem(STORED, JSON.stringify([...histories]));
    } catch {
      // Over the storage quota (many replicas) or storage off: the charts still work, for this page view.
      sessionStorage.removeItem(STORED);
    }
  }

  const time = (ms) => new Date(ms).toLocaleTimeString([], { hour12: false });
  const served = (c) => c.hit + c.stale;
  const lookups = (c) => c.hit + c.miss + c.stale;
  const percent = (part, whole) => (whole > 0 ? (100 * part) / whole : null);

  /** Like PromQL's histogram_quantile: linear inside the bucket where the rank falls. */
  function quantile(q, buckets, total) {
    if (total <= 0) return null;
    const rank = q * total;
    let previousLe = 0;
    let previousCount = 0;
    for (const { le, count } of buckets) {
      if (count >= rank) {
        const inBucket = count - previousCount;
        return inBucket > 0 ? previousLe + ((le - previousLe) * (rank - previousCount)) / inBucket : le;
      }
      previousLe = le;
      previousCount = count;
    }
    return previousLe; // beyond the last finite bucket
  }

  /** The upstream figures between two samples (or since start when there is one). */
  function upstreamWindow(first, last) {
    const before = new Map((first === last ? [] : first.upstream).map((u) => [`${u.environment}/${u.operation}`, u]));
    return last.upstream.map((u) => {
      const b = before.get(`${u.environment}/${u.operation}`);
      const calls = { ok: u.calls.ok - (b?.calls.ok ?? 0), error: u.calls.error - (b?.calls.error ?? 0), timeout: u.calls.timeout - (b?.calls.timeout ?? 0) };
      const buckets = u.buckets.map((bucket, i) => ({ le: bucket.le, count: bucket.count - (b?.buckets[i]?.count ?? 0) }));
      const total = calls.ok + calls.error + calls.timeout;
      const label = u.environment === 'sandbox' ? u.operation : `${u.operation} (${u.environment})`;
      return { label, calls, total, p50: quantile(0.5, buckets, total), p95: quantile(0.95, buckets, total) };
    }).filter((u) => u.total > 0);
  }

  const baseOptions = { animation: false, responsive: true, maintainAspectRatio: false, plugins: { legend: { position: 'bottom' } } };
  let charts;
  function createCharts() {
    const line = (id, datasets, yMax) => new Chart(document.getElementById(id), {
      type: 'line',
      data: { labels: [], datasets },
      options: { ...baseOptions, spanGaps: true, scales: { y: { beginAtZero: true, ...(yMax ? { max: yMax } : {}) } } },
    });
    const bar = (id, datasets, stacked) => new Chart(document.getElementById(id), {
      type: 'bar',
      data: { labels: [], datasets },
      options: { ...baseOptions, scales: { x: { stacked }, y: { beginAtZero: true, stacked } } },
    });
    charts = {
      hitRate: line('chart-hit-rate', CACHES.map((cache) => ({ label: cache, data: [], borderColor: COLORS[cache], backgroundColor: COLORS[cache], tension: 0.2, pointRadius: 2 })), 100),
      latency: bar('chart-latency', ['p50', 'p95'].map((q) => ({ label: q, data: [], backgroundColor: COLORS[q] })), false),
      upstream: bar('chart-upstream', ['ok', 'error', 'timeout'].map((outcome) => ({ label: outcome, data: [], backgroundColor: COLORS[outcome] })), true),
      errors: bar('chart-errors', [{ label: 'errors', data: [], backgroundColor: COLORS.errors }], false),
      misses: bar('chart-misses', MISS_REASONS.map((reason) => ({ label: reason, data: [], backgroundColor: MISS_COLORS[reason] })), true),
    };
  }

  function setTile(id, value, text) {
    const element = document.getElementById(id);
    element.dataset.value = value === null ? '' : String(value);
    element.textContent = text;
  }

  function render() {
    const last = samples[samples.length - 1];
    const first = samples[0];
    // Tiles: since the process started, except requests/s (the last interval).
    for (const cache of CACHES) {
      const rate = percent(served(last.caches[cache]), lookups(last.caches[cache]));
      setTile(`tile-hit-${cache}`, rate, rate === null ? '–' : `${rate.toFixed(1)} %`);
    }
    const previous = samples[samples.length - 2];
    const rps = previous ? ((last.requests - previous.requests) * 1000) / Math.max(1, last.at - previous.at) : null;
    setTile('tile-requests', rps, rps === null ? '–' : rps.toFixed(1));
    const failed = last.upstream.reduce((sum, u) => sum + u.calls.error + u.calls.timeout, 0);
    setTile('tile-upstream-errors', failed, String(failed));
    const limited = Object.values(last.rateLimited).reduce((sum, n) => sum + n, 0);
    setTile('tile-rate-limited', limited, String(limited));
    // An open circuit (2) refuses that environment's calls at once; half-open (1) lets one probe through.
    const circuits = Object.entries(last.circuits ?? {}).filter(([, state]) => state > 0);
    const worst = circuits.reduce((max, [, state]) => Math.max(max, state), 0);
    setTile('tile-circuits', worst, circuits.length ? circuits.map(([environment, state]) => `${environment} ${state === 2 ? 'open' : 'half-open'}`).join(', ') : 'closed');

    // Hit rate per interval: one point per sample after the first.
    const hit = charts.hitRate;
    hit.data.labels = samples.slice(1).map((s) => time(s.at));
    CACHES.forEach((cache, index) => {
      hit.data.datasets[index].data = samples.slice(1).map((s, i) => {
        const before = samples[i].caches[cache];
        const now = s.caches[cache];
        return percent(served(now) - served(before), lookups(now) - lookups(before));
      });
    });
    hit.update();

    const window = upstreamWindow(first, last);
    charts.latency.data.labels = window.map((u) => u.label);
    charts.latency.data.datasets[0].data = window.map((u) => (u.p50 === null ? null : u.p50 * 1000));
    charts.latency.data.datasets[1].data = window.map((u) => (u.p95 === null ? null : u.p95 * 1000));
    charts.latency.update();
    charts.upstream.data.labels = window.map((u) => u.label);
    ['ok', 'error', 'timeout'].forEach((outcome, index) => { charts.upstream.data.datasets[index].data = window.map((u) => u.calls[outcome]); });
    charts.upstream.update();

    const codes = Object.keys(last.errors).filter((code) => last.errors[code] - (first === last ? 0 : first.errors[code] ?? 0) > 0).sort();
    charts.errors.data.labels = codes;
    charts.errors.data.datasets[0].data = codes.map((code) => last.errors[code] - (first === last ? 0 : first.errors[code] ?? 0));
    charts.errors.update();

    // Misses over the window, one bar per cache stacked by reason (a snapshot without them: none).
    charts.misses.data.labels = CACHES;
    MISS_REASONS.forEach((reason, index) => {
      charts.misses.data.datasets[index].data = CACHES.map((cache) => (last.misses?.[cache]?.[reason] ?? 0) - (first === last ? 0 : first.misses?.[cache]?.[reason] ?? 0));
    });
    charts.misses.update();
  }

  // The upstream schema panel: one card per environment, rebuilt only when the check's result
  // changed. Text goes in as text (textContent), never as HTML: paths and messages are the upstream's.
  const SHOWN = 50;
  let shownSchema = '';
  function element(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes ?? {})) node.setAttribute(name, value);
    for (const child of children) node.append(child);
    return node;
  }
  function schemaCard(environment, check) {
    const breaking = check.changes.filter((change) => change.severity === 'breaking').length;
    const counts = { breaking, dangerous: 0, safe: 0 };
    for (const change of check.changes) if (change.severity !== 'breaking') counts[change.severity] += 1;
    const alarm = breaking > 0 || check.invalidDocuments.length > 0;
    const badge = element('span', { class: `badge ${check.status}${alarm && check.status === 'changed' ? ' breaking' : ''}` }, check.status);
    const card = element('div', { class: 'schema-environment', 'data-environment': environment, 'data-status': check.status, 'data-breaking': String(breaking), 'data-invalid-documents': String(check.invalidDocuments.length) },
      element('h3', {}, environment, badge));
    const when = [
      check.checkedAt ? `checked ${time(Date.parse(check.checkedAt))}` : 'not checked yet',
      check.lastSuccessAt && check.lastSuccessAt !== check.checkedAt ? `last success ${time(Date.parse(check.lastSuccessAt))}` : '',
      check.durationMs !== undefined ? `took ${check.durationMs} ms` : '',
    ].filter(Boolean).join(' · ');
    card.append(element('p', { class: 'meta' }, when));
    if (check.reason) card.append(element('p', { class: 'meta reason' }, check.reason));
    if (check.lastSuccessAt) {
      const refused = check.invalidDocuments.length;
      card.append(element('p', { class: 'meta counts' }, `${counts.breaking} breaking · ${counts.dangerous} dangerous · ${counts.safe} safe · ${refused} trusted document${refused === 1 ? '' : 's'} refused`));
    }
    if (check.changes.length) {
      const rows = check.changes.slice(0, SHOWN).map((change) => element('tr', {},
        element('td', { class: `severity-${change.severity}` }, change.severity), element('td', {}, element('code', {}, change.path)), element('td', {}, change.description)));
      card.append(element('table', { class: 'changes' }, element('tr', {}, element('th', {}, 'severity'), element('th', {}, 'path'), element('th', {}, 'change')), ...rows));
      if (check.changes.length > SHOWN) card.append(element('p', { class: 'meta' }, `and ${check.changes.length - SHOWN} more (GET /ops/upstream-schema)`));
    }
    if (check.invalidDocuments.length) {
      const rows = check.invalidDocuments.slice(0, SHOWN).map((document) => element('tr', {},
        element('td', {}, document.name), element('td', { class: 'id' }, element('code', {}, document.id.slice(0, 12))), element('td', {}, document.message)));
      card.append(element('table', { class: 'documents' }, element('tr', {}, element('th', {}, 'trusted document'), element('th', {}, 'id'), element('th', {}, 'why the upstream would refuse it')), ...rows));
    }
    return card;
  }
  function renderSchema(statuses) {
    const text = JSON.stringify(statuses ?? null);
    if (text === shownSchema) return;
    shownSchema = text;
    const target = document.getElementById('schema-environments');
    target.replaceChildren(...(statuses ? Object.entries(statuses).map(([environment, check]) => schemaCard(environment, check)) : [element('p', { class: 'scope' }, 'Not available on this replica.')]));
  }

  async function poll() {
    const status = document.getElementById('status');
    try {
      const response = await fetch('data', { cache: 'no-store', credentials: 'same-origin' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const sample = await response.json();
      if (!histories.has(sample.instance)) {
        histories.set(sample.instance, []);
        if (histories.size > 16) histories.delete(histories.keys().next().value);
      }
      samples = histories.get(sample.instance);
      samples.push(sample);
      if (samples.length > HISTORY) samples.shift();
      keep();
      render();
      renderSchema(sample.upstreamSchema);
      status.className = '';
      const replicas = histories.size > 1 ? ` · replica ${sample.instance.split('-')[0]} of ${histories.size} seen` : '';
      status.textContent = `Updated ${time(sample.at)} · every ${every / 1000} s${replicas}`;
    } catch (error) {
      status.className = 'error';
      status.textContent = `Cannot read /ops/data (${error.message}); retrying`;
    } finally {
      setTimeout(poll, every);
    }
  }

  createCharts();
  void poll();
})();
