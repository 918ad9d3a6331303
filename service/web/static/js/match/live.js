// Live updates: the match's public event stream as the "something changed" signal.
//
// An EventSource cannot sign a request, so the page listens to the public stream and then re-reads
// what it may see (the spectator view, and the signed seat view when it holds a seat). The browser
// reconnects by itself (with Last-Event-ID); only a stream the server refused for good (the
// EventSource is closed) is reopened here, from the ply the page last showed.

const TYPES = ["started", "move", "finished", "aborted"];
const REOPEN_MS = 5000;

/**
 * Listen to match ``matchId`` from after ply ``fromPly`` (null: from the start, for a match still
 * waiting). ``onEvent(event)`` gets each parsed event; ``currentPly()`` says where to resume if the
 * stream must be reopened; ``wanted()`` false stops (the match is over); ``onClosed()`` is called
 * when the server refused the stream for good (before it is reopened). Returns stop().
 */
export function listen(matchId, fromPly, { onEvent, currentPly, wanted, onClosed = () => {} }) {
  let source = null;
  let timer = null;
  let stopped = false;
  const open = (ply) => {
    const query = ply === null || ply === undefined ? "" : `?last_event_id=${encodeURIComponent(ply)}`;
    source = new EventSource(`/v1/matches/${encodeURIComponent(matchId)}/events${query}`);
    for (const type of TYPES) {
      source.addEventListener(type, (msg) => {
        let event;
        try {
          event = JSON.parse(msg.data);
        } catch {
          return; // not ours to guess at; the next event re-reads the view anyway
        }
        onEvent(event);
      });
    }
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
