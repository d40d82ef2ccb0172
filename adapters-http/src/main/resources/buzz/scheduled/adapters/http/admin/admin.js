// The operator page: reads /v1/admin/stats and /v1/admin/messages, and calls the operator actions, each request
// signed with NIP-98 (kind 27235) through the NIP-07 signer in window.nostr. Nothing is stored in the browser.
(function () {
  'use strict';
  const STATES = ['scheduled', 'claimed', 'sending', 'published', 'cancelled', 'failed'];
  const base = document.querySelector('meta[name="buzz-public-base-url"]').content.replace(/\/$/, '');
  const $ = (id) => document.getElementById(id);
  let nextCursor = null;
  let lastSearch = null;
  let timer = null;

  function hex(bytes) {
    return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  function base64(text) {
    const bytes = new TextEncoder().encode(text);
    let binary = '';
    bytes.forEach((b) => { binary += String.fromCharCode(b); });
    return btoa(binary);
  }

  // NIP-98: u = PUBLIC_BASE_URL + path + query, method, payload = SHA-256 of the body when there is one.
  async function authorization(method, pathAndQuery, body) {
    if (!window.nostr || typeof window.nostr.signEvent !== 'function') {
      throw new Error('No NIP-07 signer: install a Nostr signer extension that provides window.nostr.');
    }
    const nonce = new Uint8Array(8);
    crypto.getRandomValues(nonce);
    const tags = [['u', base + pathAndQuery], ['method', method], ['nonce', hex(nonce)]];
    if (body) {
      tags.push(['payload', hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)))]);
    }
    const signed = await window.nostr.signEvent({
      kind: 27235, created_at: Math.floor(Date.now() / 1000), tags, content: '',
    });
    return 'Nostr ' + base64(JSON.stringify(signed));
  }

  async function call(method, pathAndQuery, body) {
    const headers = { Authorization: await authorization(method, pathAndQuery, body) };
    if (body) headers['Content-Type'] = 'application/json';
    const response = await fetch(pathAndQuery.replace(/^\//, ''), { method, headers, body, cache: 'no-store' });
    const text = await response.text();
    const json = text ? JSON.parse(text) : null;
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

  function secs(value) {
    return value === null || value === undefined ? '–' : value.toFixed(value < 10 ? 3 : 1) + ' s';
  }

  function cell(row, text, mono) {
    const td = document.createElement('td');
    td.textContent = text === null || text === undefined ? '' : String(text);
    if (mono) td.className = 'mono';
    row.appendChild(td);
  }

  function short(key) {
    return key ? key.slice(0, 8) + '…' + key.slice(-4) : '';
  }

  function renderCounts(counts) {
    const box = $('counts');
    box.textContent = '';
    STATES.forEach((state) => {
      const tile = document.createElement('div');
      tile.className = 'tile ' + state;
      const n = document.createElement('div');
      n.className = 'n';
      n.dataset.testid = 'count-' + state;
      n.textContent = String(counts[state]);
      const label = document.createElement('div');
      label.className = 'label';
      label.textContent = state;
      tile.append(n, label);
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

  function renderChart(stats) {
    const svg = $('chart');
    const ns = 'http://www.w3.org/2000/svg';
    svg.textContent = '';
    const minutes = new Map(stats.throughput.per_minute.map((m) => [m.start, m]));
    const end = Math.floor(stats.now / 60) * 60;
    const top = Math.max(1, ...stats.throughput.per_minute.map((m) => m.lateness_max));
    const width = 720, height = 140, slot = width / 60;
    const line = (x1, y1, x2, y2, cls) => {
      const l = document.createElementNS(ns, 'line');
      Object.entries({ x1, y1, x2, y2 }).forEach(([k, v]) => l.setAttribute(k, v));
      l.setAttribute('class', cls);
      svg.appendChild(l);
    };
    line(0, height, width, height, 'axis');
    for (let i = 0; i < 60; i++) {
      const m = minutes.get(end - (59 - i) * 60);
      if (!m || m.published === 0) continue;
      const x = i * slot;
      const h = Math.max(1, (m.lateness_p50 / top) * height);
      const bar = document.createElementNS(ns, 'rect');
      bar.setAttribute('x', x + 1);
      bar.setAttribute('y', height - h);
      bar.setAttribute('width', slot - 2);
      bar.setAttribute('height', h);
      bar.setAttribute('class', 'bar');
      const title = document.createElementNS(ns, 'title');
      title.textContent = time(m.start) + ': ' + m.published + ' published, median ' + secs(m.lateness_p50)
        + ', max ' + secs(m.lateness_max);
      bar.appendChild(title);
      svg.appendChild(bar);
      const y = height - (m.lateness_max / top) * height;
      line(x + 1, y, x + slot - 1, y, 'max');
    }
    const label = document.createElementNS(ns, 'text');
    label.setAttribute('x', 2);
    label.setAttribute('y', 152);
    label.textContent = '−60 min … now; top = ' + secs(top);
    svg.appendChild(label);
  }

  function renderFailures(failures) {
    const body = $('failures');
    body.textContent = '';
    if (failures.length === 0) {
      const row = body.insertRow();
      cell(row, 'none');
      row.cells[0].colSpan = 7;
      row.cells[0].className = 'muted';
      return;
    }
    failures.forEach((f) => {
      const row = body.insertRow();
      row.dataset.testid = 'failure';
      cell(row, time(f.failed_at));
      cell(row, f.reason);
      cell(row, f.detail);
      cell(row, f.channel);
      cell(row, short(f.owner), true);
      cell(row, f.id, true);
      cell(row, f.attempts);
    });
  }

  function renderStats(stats) {
    renderCounts(stats.counts);
    renderLinks(stats.links);
    document.querySelector('[data-testid="overdue"]').textContent = String(stats.overdue);
    document.querySelector('[data-testid="held_before"]').textContent = time(stats.held_before);
    document.querySelector('[data-testid="oldest_overdue"]').textContent = time(stats.oldest_overdue);
    document.querySelector('[data-testid="next_due"]').textContent = time(stats.next_due);
    document.querySelector('[data-testid="published_last_hour"]').textContent =
      String(stats.throughput.published_last_hour);
    document.querySelector('[data-testid="failed_last_hour"]').textContent = String(stats.throughput.failed_last_hour);
    const l = stats.lateness;
    document.querySelector('[data-testid="lateness"]').textContent =
      l.p50 === null ? '–' : [l.p50, l.p90, l.p99].map(secs).join(' / ');
    document.querySelector('[data-testid="lateness_max"]').textContent = secs(l.max);
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
    }
  }

  function renderResults(page, append) {
    const body = $('results');
    if (!append) body.textContent = '';
    page.items.forEach((m) => {
      const row = body.insertRow();
      row.dataset.testid = 'message';
      cell(row, time(m.due_at));
      cell(row, m.state);
      cell(row, m.reason);
      cell(row, m.last_error);
      cell(row, m.channel);
      cell(row, short(m.owner), true);
      cell(row, m.id, true);
      cell(row, m.revision);
      cell(row, m.attempts);
    });
    if (!append && page.items.length === 0) {
      const row = body.insertRow();
      cell(row, 'no messages match');
      row.cells[0].colSpan = 9;
      row.cells[0].className = 'muted';
    }
    nextCursor = page.next_cursor;
    $('more').hidden = !nextCursor;
  }

  async function search(append) {
    const query = new URLSearchParams();
    Object.entries(lastSearch).forEach(([k, v]) => { if (v) query.set(k, v); });
    query.set('limit', '50');
    if (append && nextCursor) query.set('cursor', nextCursor);
    try {
      renderResults(await call('GET', '/v1/admin/messages?' + query.toString()), append);
      clearError();
    } catch (error) {
      showError(error);
    }
  }

  async function act(form, method, path, sentence) {
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
    const data = new FormData(e.target);
    lastSearch = { owner: data.get('owner').trim(), channel: data.get('channel').trim(), state: data.get('state') };
    search(false);
  });
  $('more').addEventListener('click', () => search(true));
  $('channel-deleted').addEventListener('submit', (e) => {
    e.preventDefault();
    const channel = new FormData(e.target).get('channel').trim();
    act(e.target, 'POST', '/v1/admin/channels/' + encodeURIComponent(channel) + '/deleted',
      'Mark channel "' + channel + '" deleted? Its pending messages fail channel_deleted and every stored event '
      + 'in it is purged.');
  });
  $('member-removed').addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(e.target);
    const channel = data.get('channel').trim();
    const pubkey = data.get('pubkey').trim();
    act(e.target, 'POST', '/v1/admin/channels/' + encodeURIComponent(channel) + '/members/' + pubkey + '/removed',
      'Mark ' + pubkey + ' removed from "' + channel + '"? Their pending messages there fail member_removed.');
  });
  $('owner-purge').addEventListener('submit', (e) => {
    e.preventDefault();
    const pubkey = new FormData(e.target).get('pubkey').trim();
    act(e.target, 'DELETE', '/v1/admin/owners/' + pubkey,
      'Delete every message of ' + pubkey + ' in every state?');
  });
  $('refresh').addEventListener('click', refresh);
  $('auto-refresh').addEventListener('change', (e) => schedule(e.target.checked));

  function schedule(on) {
    if (timer) clearInterval(timer);
    timer = on ? setInterval(refresh, 15000) : null;
  }

  refresh();
  schedule($('auto-refresh').checked);
}());
