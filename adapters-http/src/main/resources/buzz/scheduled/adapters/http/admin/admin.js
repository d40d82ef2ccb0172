// The operator console: reads /v1/admin/stats, /v1/admin/messages and /v1/admin/messages/{id}, and calls the
// operator actions (cancel, requeue, channel deleted, member removed, owner purge), each request signed with NIP-98
// (kind 27235) through the NIP-07 signer in window.nostr. Nothing is stored in the browser. Times are UTC.
(function () {
  'use strict';
  const STATES = ['scheduled', 'claimed', 'sending', 'published', 'cancelled', 'failed'];
  const PENDING = ['scheduled', 'claimed', 'sending'];
  const base = document.querySelector('meta[name="buzz-public-base-url"]').content.replace(/\/$/, '');
  const $ = (id) => document.getElementById(id);
  let nextCursor = null;
  let lastSearch = null;
  let timer = null;
  let detailTimer = null;
  let shownId = null;

  function hex(bytes) {
    return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  function base64(text) {
    const bytes = new TextEncoder().encode(text);
    let binary = '';
    bytes.forEach((b) => { binary += String.fromCharCode(b); });
    return btoa(binary);
  }

  function signer() {
    if (!window.nostr || typeof window.nostr.signEvent !== 'function') {
      throw new Error('No NIP-07 signer: install a Nostr signer extension that provides window.nostr.');
    }
    return window.nostr;
  }

  // NIP-98: u = PUBLIC_BASE_URL + path + query, method, payload = SHA-256 of the body when there is one.
  async function authorization(method, pathAndQuery, body) {
    const nonce = new Uint8Array(8);
    crypto.getRandomValues(nonce);
    const tags = [['u', base + pathAndQuery], ['method', method], ['nonce', hex(nonce)]];
    if (body) {
      tags.push(['payload', hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)))]);
    }
    const signed = await signer().signEvent({
      kind: 27235, created_at: Math.floor(Date.now() / 1000), tags, content: '',
    });
    return 'Nostr ' + base64(JSON.stringify(signed));
  }

  async function call(method, pathAndQuery, headers) {
    const all = Object.assign({ Authorization: await authorization(method, pathAndQuery, null) }, headers || {});
    const response = await fetch(pathAndQuery.replace(/^\//, ''), { method, headers: all, cache: 'no-store' });
    const text = await response.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch (e) {
      json = null;
    }
    if (!response.ok) {
      const error = new Error((json && json.message) || ('HTTP ' + response.status));
      error.status = response.status;
      error.code = json && json.error;
      throw error;
    }
    return json;
  }

  function showError(error) {
    const banner = $('banner');
    banner.hidden = false;
    banner.dataset.status = error.status || '';
    banner.textContent = (error.status ? error.status + ' ' + (error.code || '') + ': ' : '') + error.message;
  }

  function clearError() {
    $('banner').hidden = true;
    $('banner').textContent = '';
  }

  function time(seconds) {
    if (seconds === null || seconds === undefined) return '–';
    return new Date(seconds * 1000).toISOString().replace('T', ' ').replace('.000Z', 'Z');
  }

  function clock(seconds) {
    return new Date(seconds * 1000).toISOString().slice(11, 16);
  }

  function secs(value) {
    return value === null || value === undefined ? '–' : value.toFixed(value < 10 ? 3 : 1) + ' s';
  }

  function short(text) {
    return text && text.length > 20 ? text.slice(0, 12) + '…' + text.slice(-6) : (text || '');
  }

  function copyButton(value, label) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = 'copy';
    button.title = 'copy ' + label;
    button.setAttribute('aria-label', 'copy ' + label);
    button.dataset.copy = value;
    button.addEventListener('click', async (e) => {
      e.stopPropagation();
      try {
        await navigator.clipboard.writeText(value);
        button.textContent = 'copied';
        button.classList.add('copied');
      } catch (err) {
        button.textContent = 'select it';
      }
      setTimeout(() => { button.textContent = 'copy'; button.classList.remove('copied'); }, 1500);
    });
    return button;
  }

  // A table cell: the label a narrow screen shows beside it, the text, and a copy button for ids and keys.
  function cell(row, label, text, options) {
    const td = document.createElement('td');
    td.dataset.label = label;
    const opts = options || {};
    if (opts.mono) td.className = 'mono';
    const shown = text === null || text === undefined ? '' : String(text);
    const span = document.createElement('span');
    span.textContent = opts.shorten ? short(shown) : shown;
    if (opts.shorten) span.title = shown;
    td.appendChild(span);
    if (opts.copy && shown) td.appendChild(copyButton(opts.copy, label));
    row.appendChild(td);
    return td;
  }

  function stateRow(body, columns, text, testid) {
    body.textContent = '';
    const row = body.insertRow();
    row.className = 'state';
    const td = row.insertCell();
    td.colSpan = columns;
    td.className = 'muted';
    td.textContent = text;
    if (testid) td.dataset.testid = testid;
  }

  function renderCounts(counts) {
    const box = $('counts');
    box.textContent = '';
    STATES.forEach((state) => {
      const tile = document.createElement('button');
      tile.type = 'button';
      tile.className = 'tile ' + state + (lastSearch && lastSearch.state === state ? ' selected' : '');
      tile.dataset.state = state;
      tile.title = 'list the ' + state + ' messages';
      const n = document.createElement('span');
      n.className = 'n';
      n.dataset.testid = 'count-' + state;
      n.textContent = String(counts[state]);
      const label = document.createElement('span');
      label.className = 'label';
      label.textContent = state;
      tile.append(n, label);
      tile.addEventListener('click', () => {
        const form = $('search');
        form.elements.state.value = state;
        submitSearch();
        $('search-section').scrollIntoView({ block: 'start' });
      });
      box.appendChild(tile);
    });
  }

  function renderLinks(links) {
    const box = $('links');
    box.textContent = '';
    const pills = [['relay', links.relay_connected], ['LISTEN', links.listening]];
    if (links.nip29_in_sync !== null) pills.push(['NIP-29', links.nip29_in_sync]);
    pills.forEach(([name, up]) => {
      const pill = document.createElement('span');
      pill.className = 'pill ' + (up ? 'up' : 'down');
      pill.dataset.testid = 'link-' + name;
      pill.textContent = name + (up ? ' up' : ' down');
      box.appendChild(pill);
    });
  }

  function renderWhoami(signedIn) {
    const box = $('whoami');
    box.textContent = 'signed in as ';
    const key = document.createElement('code');
    key.dataset.testid = 'whoami-npub';
    key.textContent = short(signedIn.npub);
    key.title = signedIn.npub + ' (' + signedIn.pubkey + ')';
    box.append(key, copyButton(signedIn.npub, 'your npub'), document.createTextNode(' · operator'));
  }

  // The chart: lateness of the last hour, one slot a minute; y axis in seconds, x axis in UTC time.
  function renderChart(stats) {
    const svg = $('chart');
    const ns = 'http://www.w3.org/2000/svg';
    svg.textContent = '';
    const left = 80, right = 685, top = 10, bottom = 170;
    const width = right - left, height = bottom - top, slot = width / 60;
    const minutes = new Map(stats.throughput.per_minute.map((m) => [m.start, m]));
    const end = Math.floor(stats.now / 60) * 60;
    const ceiling = niceCeiling(Math.max(0.001, ...stats.throughput.per_minute.map((m) => m.lateness_max)));
    const add = (name, attributes, text) => {
      const element = document.createElementNS(ns, name);
      Object.entries(attributes).forEach(([k, v]) => element.setAttribute(k, v));
      if (text !== undefined) element.textContent = text;
      svg.appendChild(element);
      return element;
    };
    [0, 0.5, 1].forEach((fraction) => {
      const y = bottom - fraction * height;
      add('line', { x1: left, y1: y, x2: right, y2: y, class: fraction === 0 ? 'axis' : 'grid' });
      add('text', { x: left - 6, y: y + 4, 'text-anchor': 'end', 'data-testid': 'y-tick' },
        secs(ceiling * fraction));
    });
    add('line', { x1: left, y1: top, x2: left, y2: bottom, class: 'axis' });
    for (let back = 60; back >= 0; back -= 15) {
      const x = left + (60 - back) * slot;
      add('line', { x1: x, y1: bottom, x2: x, y2: bottom + 4, class: 'axis' });
      add('text', { x, y: bottom + 16, 'text-anchor': 'middle', 'data-testid': 'x-tick' }, clock(end - back * 60));
    }
    add('text', { x: (left + right) / 2, y: 204, 'text-anchor': 'middle' }, 'time (UTC), one bar a minute');
    add('text', { x: 12, y: (top + bottom) / 2, 'text-anchor': 'middle',
      transform: 'rotate(-90 12 ' + (top + bottom) / 2 + ')' }, 'lateness');
    let bars = 0;
    for (let i = 0; i < 60; i++) {
      const m = minutes.get(end - (59 - i) * 60);
      if (!m || m.published === 0) continue;
      const x = left + i * slot;
      const h = Math.max(1, (m.lateness_p50 / ceiling) * height);
      const bar = add('rect', { x: x + 1, y: bottom - h, width: Math.max(1, slot - 2), height: h, class: 'bar' });
      const title = document.createElementNS(ns, 'title');
      title.textContent = time(m.start) + ': ' + m.published + ' published, median ' + secs(m.lateness_p50)
        + ', max ' + secs(m.lateness_max);
      bar.appendChild(title);
      const y = bottom - (m.lateness_max / ceiling) * height;
      add('line', { x1: x + 1, y1: y, x2: x + slot - 1, y2: y, class: 'max' });
      bars++;
    }
    if (bars === 0) {
      add('text', { x: (left + right) / 2, y: (top + bottom) / 2, 'text-anchor': 'middle', class: 'placeholder',
        'data-testid': 'chart-empty' }, 'nothing published in the last hour');
    }
  }

  // The axis top: the largest lateness rounded up to 1, 2 or 5 times a power of ten.
  function niceCeiling(value) {
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    const step = [1, 2, 5, 10].find((s) => s * power >= value);
    return step * power;
  }

  function renderFailures(failures) {
    const body = $('failures');
    if (failures.length === 0) {
      stateRow(body, 7, 'none among the messages kept (BUZZ_RETENTION_DAYS)', 'failures-none');
      return;
    }
    body.textContent = '';
    failures.forEach((f) => {
      const row = body.insertRow();
      row.dataset.testid = 'failure';
      row.dataset.id = f.id;
      row.className = 'clickable';
      row.title = 'show this message';
      row.addEventListener('click', () => openDetail(f.id));
      cell(row, 'failed at', time(f.failed_at));
      cell(row, 'reason', f.reason);
      cell(row, "relay's words", f.detail);
      cell(row, 'channel', f.channel);
      cell(row, 'owner', f.owner_npub, { mono: true, shorten: true, copy: f.owner_npub });
      cell(row, 'id', f.id, { mono: true, copy: f.id });
      cell(row, 'attempts', f.attempts);
    });
  }

  function setText(testid, text) {
    document.querySelector('[data-testid="' + testid + '"]').textContent = text;
  }

  function renderStats(stats) {
    renderCounts(stats.counts);
    renderLinks(stats.links);
    if (stats.signed_in) renderWhoami(stats.signed_in);
    setText('overdue', String(stats.overdue));
    setText('held_before', time(stats.held_before));
    setText('oldest_overdue', time(stats.oldest_overdue));
    setText('next_due', time(stats.next_due));
    setText('published_last_hour', String(stats.throughput.published_last_hour));
    setText('failed_last_hour', String(stats.throughput.failed_last_hour));
    setText('retried_last_hour', String(stats.throughput.retried_last_hour));
    const l = stats.lateness;
    setText('lateness', l.p50 === null ? 'nothing published' : [l.p50, l.p90, l.p99].map(secs).join(' / '));
    setText('lateness_max', secs(l.max));
    renderChart(stats);
    renderFailures(stats.recent_failures);
    document.body.dataset.loaded = 'stats';
  }

  async function refresh() {
    try {
      renderStats(await call('GET', '/v1/admin/stats'));
      clearError();
    } catch (error) {
      document.body.dataset.loaded = 'error';
      showError(error);
      if (error.status === 403) $('whoami').textContent = 'signed in with a key that is not an operator';
      ['failures'].forEach((id) => stateRow($(id), 7, 'not loaded: ' + error.message, 'failures-error'));
    }
  }

  // A datetime-local value read as UTC, in Unix seconds; empty when blank.
  function utcSeconds(value) {
    if (!value) return '';
    const ms = Date.parse(value.length === 16 ? value + ':00Z' : value + 'Z');
    return Number.isNaN(ms) ? '' : String(Math.floor(ms / 1000));
  }

  function utcInput(seconds) {
    return new Date(seconds * 1000).toISOString().slice(0, 19);
  }

  function renderResults(page, append) {
    const body = $('results');
    if (!append) body.textContent = '';
    page.items.forEach((m) => {
      const row = body.insertRow();
      row.dataset.testid = 'message';
      row.dataset.id = m.id;
      row.dataset.state = m.state;
      row.className = 'clickable';
      row.title = 'show this message';
      row.addEventListener('click', () => openDetail(m.id));
      cell(row, 'due', time(m.due_at));
      cell(row, 'state', m.state);
      cell(row, 'reason', m.reason);
      // A published message's last error is an old retry's: it would read as a problem it does not have.
      cell(row, 'last error', m.state === 'published' ? '' : m.last_error);
      cell(row, 'channel', m.channel);
      cell(row, 'owner', m.owner_npub, { mono: true, shorten: true, copy: m.owner_npub });
      cell(row, 'id', m.id, { mono: true, copy: m.id });
      cell(row, 'rev', m.revision);
      cell(row, 'attempts', m.attempts);
    });
    if (!append && page.items.length === 0) {
      stateRow(body, 9, 'no messages match', 'results-none');
    }
    const shown = body.querySelectorAll('[data-testid="message"]').length;
    $('matched').textContent = (page.matched_capped ? 'more than ' + page.matched : String(page.matched))
      + ' matching message' + (page.matched === 1 ? '' : 's') + ', ' + shown + ' shown';
    $('matched').dataset.count = String(page.matched);
    nextCursor = page.next_cursor;
    $('more').hidden = !nextCursor;
  }

  async function search(append) {
    const query = new URLSearchParams();
    Object.entries(lastSearch).forEach(([k, v]) => { if (v) query.set(k, v); });
    query.set('limit', '50');
    if (append && nextCursor) query.set('cursor', nextCursor);
    if (!append) {
      stateRow($('results'), 9, 'loading…', 'results-loading');
      $('matched').textContent = '';
    }
    document.querySelectorAll('.tile').forEach((tile) => tile.classList.toggle('selected',
      tile.dataset.state === lastSearch.state));
    try {
      renderResults(await call('GET', '/v1/admin/messages?' + query.toString()), append);
      clearError();
    } catch (error) {
      if (!append) stateRow($('results'), 9, 'not loaded: ' + error.message, 'results-error');
      showError(error);
    }
  }

  function submitSearch() {
    const data = new FormData($('search'));
    lastSearch = {
      owner: data.get('owner').trim(), channel: data.get('channel').trim(), state: data.get('state'),
      due_from: utcSeconds(data.get('due_from')), due_before: utcSeconds(data.get('due_before')),
      order: data.get('order') === '-due' ? '-due' : '',
    };
    search(false);
  }

  // ---- one message ----------------------------------------------------------------------------------------------

  function field(list, name, value, copy) {
    const dt = document.createElement('dt');
    dt.textContent = name;
    const dd = document.createElement('dd');
    dd.dataset.testid = 'detail-' + name.replace(/ /g, '-');
    const span = document.createElement('span');
    span.textContent = value === null || value === undefined ? '–' : String(value);
    dd.appendChild(span);
    if (copy) dd.appendChild(copyButton(copy, name));
    list.append(dt, dd);
  }

  function renderDetail(m) {
    $('detail').hidden = false;
    $('detail').dataset.state = m.state;
    $('detail-id').textContent = m.id;
    const list = $('detail-fields');
    list.textContent = '';
    field(list, 'state', m.state + (m.reason ? ' (' + m.reason + ')' : ''));
    field(list, 'due', time(m.due_at));
    field(list, 'channel', m.channel);
    field(list, 'owner', m.owner_npub, m.owner_npub);
    field(list, 'owner hex', m.owner, m.owner);
    field(list, 'id', m.id, m.id);
    field(list, 'event id', m.event_id, m.event_id);
    field(list, 'revision', m.revision);
    field(list, 'admitted', time(m.created_at));
    field(list, 'updated', time(m.updated_at));
    field(list, 'ended', time(m.finished_at));
    field(list, 'event stored', m.purged ? 'no (deleted)' : 'yes (content never shown here)');
    const actions = $('detail-actions');
    actions.textContent = '';
    if (m.state === 'scheduled' || m.state === 'claimed') {
      const cancel = document.createElement('button');
      cancel.type = 'button';
      cancel.className = 'danger';
      cancel.dataset.testid = 'cancel';
      cancel.textContent = 'Cancel this message';
      cancel.addEventListener('click', () => act(m, 'cancel',
        'Cancel message ' + m.id + ' of ' + m.owner_npub + '? It will never be published; its event is deleted.'));
      actions.appendChild(cancel);
    }
    if (m.state === 'failed' && !m.purged) {
      const requeue = document.createElement('button');
      requeue.type = 'button';
      requeue.className = 'primary';
      requeue.dataset.testid = 'requeue';
      requeue.textContent = 'Requeue (send again now)';
      requeue.addEventListener('click', () => act(m, 'requeue',
        'Requeue message ' + m.id + '? Its owner\'s signed event (revision ' + m.revision + ') is due again at once.'
        + ' Do this only once the cause of "' + m.reason + '" is fixed.'));
      actions.appendChild(requeue);
    }
    if (m.state === 'failed' && m.purged) {
      const note = document.createElement('span');
      note.className = 'muted';
      note.textContent = 'Its event was deleted: only its owner can schedule it again.';
      actions.appendChild(note);
    }
    const body = $('detail-attempts');
    body.textContent = '';
    if (m.attempts.length === 0) {
      stateRow(body, 6, 'none recorded', 'attempts-none');
    }
    m.attempts.forEach((a) => {
      const row = body.insertRow();
      row.dataset.testid = 'attempt';
      cell(row, 'at', time(a.at));
      cell(row, 'attempt', a.attempt);
      cell(row, 'revision', a.revision);
      cell(row, 'outcome', a.outcome);
      cell(row, 'reason', a.reason);
      cell(row, "relay's words", a.relay_message);
    });
    document.body.dataset.detail = m.id + ':' + m.state;
  }

  async function openDetail(id) {
    shownId = id;
    $('detail').hidden = false;
    $('detail-id').textContent = id;
    $('detail-fields').textContent = '';
    $('detail-actions').textContent = '';
    stateRow($('detail-attempts'), 6, 'loading…', 'attempts-loading');
    $('detail').scrollIntoView({ block: 'start' });
    await loadDetail(id);
  }

  async function loadDetail(id) {
    if (detailTimer) clearTimeout(detailTimer);
    try {
      const m = await call('GET', '/v1/admin/messages/' + encodeURIComponent(id));
      if (shownId !== id) return;
      renderDetail(m);
      clearError();
      // While it may still change soon (due within a minute, or being sent), follow it.
      if (PENDING.includes(m.state) && m.due_at <= Date.now() / 1000 + 60) {
        detailTimer = setTimeout(() => loadDetail(id), 2000);
      }
    } catch (error) {
      showError(error);
    }
  }

  async function act(m, action, sentence) {
    if (!window.confirm(sentence)) return;
    try {
      const headers = action === 'requeue' ? { 'If-Match': '"' + m.revision + '"' } : {};
      const updated = await call('POST', '/v1/admin/messages/' + encodeURIComponent(m.id) + '/' + action, headers);
      renderDetail(updated);
      const notice = document.createElement('p');
      notice.className = 'notice';
      notice.dataset.testid = 'action-done';
      notice.textContent = action === 'cancel' ? 'Cancelled.' : 'Requeued: due again now.';
      $('detail-actions').appendChild(notice);
      clearError();
      refresh();
      if (lastSearch) search(false);
      if (action === 'requeue') detailTimer = setTimeout(() => loadDetail(m.id), 2000);
    } catch (error) {
      showError(error);
    }
  }

  // ---- channel and owner actions --------------------------------------------------------------------------------

  async function bulk(form, method, path, sentence) {
    if (!window.confirm(sentence + '\n\nThis cannot be undone.')) return;
    try {
      const result = await call(method, path);
      $('action-result').hidden = false;
      $('action-result').textContent = JSON.stringify(result, null, 2);
      form.reset();
      clearError();
      refresh();
    } catch (error) {
      showError(error);
    }
  }

  $('search').addEventListener('submit', (e) => {
    e.preventDefault();
    submitSearch();
  });
  document.querySelectorAll('.presets button').forEach((button) => button.addEventListener('click', () => {
    const form = $('search');
    const now = Math.floor(Date.now() / 1000);
    if (!button.dataset.range) {
      form.elements.due_from.value = '';
      form.elements.due_before.value = '';
    } else {
      const [from, to] = button.dataset.range.split(',').map(Number);
      form.elements.due_from.value = utcInput(now + from);
      form.elements.due_before.value = utcInput(now + to);
    }
    submitSearch();
  }));
  $('sort-due').addEventListener('click', () => {
    const order = $('search').elements.order;
    order.value = order.value === '-due' ? 'due' : '-due';
    submitSearch();
  });
  $('more').addEventListener('click', () => search(true));
  $('detail-close').addEventListener('click', () => {
    shownId = null;
    if (detailTimer) clearTimeout(detailTimer);
    $('detail').hidden = true;
  });
  $('channel-deleted').addEventListener('submit', (e) => {
    e.preventDefault();
    const channel = new FormData(e.target).get('channel').trim();
    bulk(e.target, 'POST', '/v1/admin/channels/' + encodeURIComponent(channel) + '/deleted',
      'Mark channel "' + channel + '" deleted? Its pending messages fail channel_deleted and every stored event '
      + 'in it is purged.');
  });
  $('member-removed').addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(e.target);
    const channel = data.get('channel').trim();
    const pubkey = data.get('pubkey').trim();
    bulk(e.target, 'POST', '/v1/admin/channels/' + encodeURIComponent(channel) + '/members/'
      + encodeURIComponent(pubkey) + '/removed',
      'Mark ' + pubkey + ' removed from "' + channel + '"? Their pending messages there fail member_removed.');
  });
  $('owner-purge').addEventListener('submit', (e) => {
    e.preventDefault();
    const pubkey = new FormData(e.target).get('pubkey').trim();
    bulk(e.target, 'DELETE', '/v1/admin/owners/' + encodeURIComponent(pubkey),
      'Delete every message of ' + pubkey + ' in every state?');
  });
  $('refresh').addEventListener('click', refresh);
  $('auto-refresh').addEventListener('change', (e) => schedule(e.target.checked));

  function schedule(on) {
    if (timer) clearInterval(timer);
    timer = on ? setInterval(refresh, 15000) : null;
  }

  // Who the signer is, before the first answer says whether that key is an operator.
  (async () => {
    try {
      const pubkey = await signer().getPublicKey();
      if (document.body.dataset.loaded !== 'stats') {
        $('whoami').textContent = 'signer key: ' + short(pubkey) + ' (checking…)';
      }
    } catch (error) {
      $('whoami').textContent = 'no signer';
    }
  })();

  refresh();
  schedule($('auto-refresh').checked);
}());
