// The /ops page's purge form: a dry run first (what would go), then the purge of exactly what the
// dry run was asked for; changing any field asks for a new dry run. POST cache/purge with the
// page's own credentials (Basic, scoped to /ops/). Answers are written as text, never as HTML.
(() => {
  'use strict';
  const form = document.getElementById('purge-form');
  const run = document.getElementById('purge-run');
  const result = document.getElementById('purge-result');
  let checked;

  /** The request the form describes: only the fields its scope takes. */
  function request(dryRun) {
    const field = (name) => form.elements.namedItem(name).value;
    const scope = field('scope');
    const body = { scope, reason: field('reason'), dryRun };
    const environment = field('environment');
    if (environment) body.environment = environment;
    if (scope === 'identity' || scope === 'statement') body.uid = field('uid');
    if (scope === 'statement') body.otxId = field('otxId');
    return body;
  }

  function show(text, state) {
    result.textContent = text;
    result.dataset.state = state;
  }

  async function send(body) {
    const response = await fetch('cache/purge', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.errors?.[0]?.message ?? `HTTP ${response.status}`);
    return answer;
  }

  const counts = ({ definitions, statements, pdfs }) => `${definitions} definitions, ${statements} statement reads, ${pdfs} PDFs`;

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    run.disabled = true;
    const body = request(true);
    try {
      const answer = await send(body);
      checked = JSON.stringify({ ...body, dryRun: false });
      result.dataset.purged = JSON.stringify(answer.purged);
      show(`Dry run: the purge would drop ${counts(answer.purged)}. Nothing was dropped.`, 'dry-run');
      run.disabled = false;
    } catch (error) {
      show(`Refused: ${error.message}`, 'error');
    }
  });

  run.addEventListener('click', async () => {
    const body = request(false);
    if (JSON.stringify(body) !== checked) {
      show('The form changed since the dry run: run it again first.', 'error');
      run.disabled = true;
      return;
    }
    run.disabled = true;
    try {
      const answer = await send(body);
      result.dataset.purged = JSON.stringify(answer.purged);
      show(`Purged ${counts(answer.purged)}, on every replica.`, 'purged');
    } catch (error) {
      show(`Refused: ${error.message}`, 'error');
    }
    checked = undefined;
  });

  // Any change asks for a new dry run.
  form.addEventListener('input', () => {
    run.disabled = true;
    checked = undefined;
  });
})();
