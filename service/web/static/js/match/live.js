// Live updates: the match's event stream as the "something changed" signal.
//
// A page that holds a seat listens to that seat's own stream, signed with this browser's key
// (`?seat=N`): it says the player is here, watching, so the server keeps their turn notice back
// while the page is open (docs/architecture.md, 'The way out'), and it carries the seat's hidden
// events. An EventSource cannot sign a request, so that stream is read with fetch. A page without
// a seat, or whose signed stream is refused, listens to the public stream with an EventSource.
// Either way the page then re-reads what it may see (the spectator view, and the signed seat view
// when it holds a seat). A stream that ends is reopened from the last event it brought (the
// browser does that itself for an EventSource; here for the signed stream, signed afresh).

import { authorization } from "../api.js";

const TYPES = ["started", "move", "finished", "aborted"];
const REOPEN_MS = 5000;
const RETRY_MS = 3000; // the server's retry hint

/**
 * Listen to match ``matchId`` from after ply ``fromPly`` (null: from the start, for a match still
 * waiting). ``onEvent(event)`` gets each parsed event; ``currentPly()`` says where to resume if the
 * stream must be reopened; ``wanted()`` false stops (the match is over); ``onClosed()`` is called
 * when the server refused the stream for good (before it is reopened). ``seat``: the seat this
 * page holds (its key signs the seat's stream), or null. Returns stop().
 */
export function listen(matchId, fromPly, { onEvent, currentPly, wanted, onClosed = () => {}, seat = null }) {
  const handlers = { onEvent, currentPly, wanted, onClosed };
  if (seat !== null && seat !== undefined && typeof ReadableStream !== "undefined") {
    return listenAsSeat(matchId, seat, fromPly, handlers);
  }
  return listenPublic(matchId, fromPly, handlers);
}

function deliver(onEvent, data) {
  let event;
  try {
    event = JSON.parse(data);
  } catch {
    return; // not ours to guess at; the next event re-reads the view anyway
  }
  onEvent(event);
}

function listenPublic(matchId, fromPly, { onEvent, currentPly, wanted, onClosed }) {
  let source = null;
  let timer = null;
  let stopped = false;
  const open = (ply) => {
    const query = ply === null || ply === undefined ? "" : `?last_event_id=${encodeURIComponent(ply)}`;
    source = new EventSource(`/v1/matches/${encodeURIComponent(matchId)}/events${query}`);
    for (const type of TYPES) source.addEventListener(type, (msg) => deliver(onEvent, msg.data));
    source.onerror = () => {
      if (stopped || source.readyState !== EventSource.CLOSED) return; // the browser retries itself
      source = null;
      // A stream refused for good may mean the match changed in a way the stream does not say
      // (e.g. aborted after its start): the page reads the view again before reopening.
      onClosed();
      if (!wanted()) return;
      timer = setTimeout(() => { timer = null; if (!stopped && wanted()) open(currentPly()); }, REOPEN_MS);
    };
  };
  open(fromPly);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (source) source.close();
  };
}

function listenAsSeat(matchId, seat, fromPly, handlers) {
  const { onEvent, currentPly, wanted, onClosed } = handlers;
  const path = `/v1/matches/${encodeURIComponent(matchId)}/events`;
  const query = `seat=${encodeURIComponent(seat)}`;
  let lastId = fromPly === null || fromPly === undefined ? null : String(fromPly);
  let stopped = false;
  let timer = null;
  let controller = null;
  let fallback = null;
  const later = (ms) => {
    if (stopped || !wanted()) return;
    timer = setTimeout(() => { timer = null; if (!stopped && wanted()) open(); }, ms);
  };
  const open = async () => {
    controller = new AbortController();
    let response;
    try {
      const headers = { Accept: "text/event-stream", Authorization: await authorization("GET", path, query, new Uint8Array(0)) };
      if (lastId !== null) headers["Last-Event-ID"] = lastId;
      response = await fetch(`${path}?${query}`, { headers, cache: "no-store", signal: controller.signal });
    } catch {
      later(RETRY_MS); // the network, or stop(): try again (later() does nothing once stopped)
      return;
    }
    if (response.status === 204) { // everything was sent and nothing will follow
      onClosed();
      return;
    }
    if (!response.ok || !response.body) {
      // Refused (this key no longer holds the seat, a clock the server finds stale, no stream slot
      // free): the public stream still says what happens; only the notices are no longer kept back.
      onClosed();
      if (!stopped && wanted()) fallback = listenPublic(matchId, lastId ?? currentPly(), handlers);
      return;
    }
    try {
      await readEvents(response.body, (id, type, data) => {
        if (id !== null) lastId = id;
        if (TYPES.includes(type)) deliver(onEvent, data);
      });
    } catch {
      // the connection dropped, or stop() aborted it
    }
    later(RETRY_MS);
  };
  open();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (controller) controller.abort();
    if (fallback) fallback();
  };
}

/** Read a text/event-stream body, calling ``onMessage(id, type, data)`` for each event block. */
async function readEvents(body, onMessage) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id = null;
      let type = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue; // a comment: the heartbeat
        const at = line.indexOf(":");
        const field = at < 0 ? line : line.slice(0, at);
        let value = at < 0 ? "" : line.slice(at + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "id") id = value;
        else if (field === "event") type = value;
        else if (field === "data") data.push(value);
      }
      if (data.length) onMessage(id, type, data.join("\n"));
    }
  }
}
