// The match page: the board, whose turn, what happened, and (for a seat this browser's key holds)
// the legal actions as buttons and board spots. Steps are queued, previewed by the server, and sent
// as one signed move. Everything shown is the server's: the spectator view, the seat view, the
// server's preview of a queue; after any refusal the page reads the server again.

import { api, getText, signedText, submitMove, mySeats, invitesFor } from "../api.js";
import { keyShown } from "../header.js";
import { el as h, errorText, showError, showStatus, clearError } from "../ui.js";
import { byId } from "../match/dom.js";
import { showBoard } from "../match/board.js";
import { showActions, showQueue, openChooser, closeChooser } from "../match/actions.js";
import { showStanding, showSeats, showInvites, showOutcome, addHappened, movesHappened, seatName } from "../match/state.js";
import { listen } from "../match/live.js";
import { noteEvents, resignQuestion, showClock, showLeave } from "../match/clock.js";
import { t, tn } from "../words.js";

const matchId = document.body.dataset.match;
const base = `/v1/matches/${encodeURIComponent(matchId)}`;
const HAPPENED_FROM_LOG = 12;

const page = {
  key: null, // {publicKey} or null: a spectator
  view: null, // the spectator view
  mine: [], // the seats this key holds
  seat: null, // the seat the actions are for
  seatView: null, // its signed view (legal_actions)
  serverSvg: null, // the board as the server shows it now (the seat's own when it holds one)
  queue: [], // [{action, text}] steps not yet sent
  queuePly: null, // the ply the queue was built on
  preview: null, // the server's preview of the queue, or null
  refused: false, // the last send was refused: the queue waits to be fixed
  boardProblem: "", // why there is no picture, in words
  shownLegal: [], // the legal actions the buttons and spots on screen stand for
  readAt: 0, // when the view (and its clock's `now`) was read, by this device's clock
};

// Why a chain: events, clicks and sends all read and change `page`; one at a time keeps every
// step working on the state the one before left.
let chain = Promise.resolve();
let refreshQueued = false;
function run(task) {
  chain = chain.then(task).catch((err) => showError(err));
  return chain;
}
function queueRefresh() {
  if (refreshQueued) return;
  refreshQueued = true;
  run(async () => { refreshQueued = false; await refresh(); });
}

async function boardText(seat) {
  if (seat !== null) return signedText(`${base}/board.svg`, `seat=${seat}`);
  return getText(`${base}/board.svg`);
}

/** The seat to act for: the one we were building a move for, else one of ours that must act now. */
function chooseSeat(view, mine) {
  if (page.queue.length && mine.includes(page.seat)) return page.seat;
  const active = (view.active_seats || []).filter((s) => mine.includes(s));
  return active.length ? active[0] : (mine.length ? mine[0] : null);
}

function dropQueue() {
  page.queue = [];
  page.queuePly = null;
  page.preview = null;
  page.refused = false;
}

/** Read the server again and show what it says. */
async function refresh() {
  const view = await api("GET", base);
  let readAt = Date.now(); // when the clock's `now` was true, for the countdown
  page.view = view;
  page.mine = page.key ? mySeats(view, page.key.publicKey) : [];
  page.seat = chooseSeat(view, page.mine);
  if (page.queue.length && (view.ply !== page.queuePly || view.status !== "active" || page.seat === null)) {
    dropQueue();
    showStatus(t("The match moved on (now at ply {ply}) before your move was sent: your queued steps were dropped. Choose again.", { ply: view.ply }));
  }
  const playing = page.seat !== null && view.status !== "waiting";
  page.seatView = playing ? await api("GET", `${base}/seats/${page.seat}/view`, { signed: true }) : null;
  // The seat view is the spectator view and more, read a moment later: its ply is the one its
  // legal actions belong to, so the page goes by it (a move may have landed in between).
  if (page.seatView) {
    page.view = page.seatView;
    readAt = Date.now();
  }
  page.serverSvg = null;
  page.boardProblem = "";
  if (view.status !== "waiting") {
    try {
      page.serverSvg = await boardText(playing ? page.seat : null);
    } catch (err) {
      // The picture is a help, not the state: without it the page shows the text rendering.
      page.boardProblem = err.status === 404 ? t("The board picture is not available; here it is in words.")
        : t("The board picture is not available ({why}); here it is in words.", { why: errorText(err) });
    }
  }
  showStanding(page.view, page.mine);
  showSeats(page.view, page.mine);
  showInvites(page.view, invitesFor(matchId));
  showOutcome(page.view);
  const nameOf = (seat) => seatName(page.view, seat);
  page.readAt = readAt;
  showClock(page.view, page.mine, nameOf, readAt);
  showLeave(page.view, page.mine, page.seatView, nameOf, { act: (seat, type) => run(() => matchAction(seat, type)), askResign });
  showPlay();
}

const ACTION_DONE = {
  "match:resign": t("You resigned."),
  "match:abort": t("Your vote to abort was counted."),
  "match:return": t("You are back: your seat is yours to play again."),
};

/**
 * Send a match action (resign, vote to abort, I'm back) for one of our seats: an envelope of its
 * own, signed like any move, on the ply the page shows. A refusal shows the server's words and
 * the page reads the server again.
 */
async function matchAction(seat, type) {
  clearError();
  try {
    await submitMove(matchId, seat, page.view.ply, [{ type }]);
    showStatus(ACTION_DONE[type] || t("Done."));
  } catch (err) {
    showError(err);
  }
  await refresh();
}

/** Ask before resigning: it cannot be undone. */
function askResign(seat) {
  const dialog = byId("resign-dialog");
  byId("resign-question").textContent = resignQuestion(page.view, seat, (s) => seatName(page.view, s));
  dialog.dataset.seat = String(seat);
  dialog.showModal();
  byId("resign-cancel").focus();
}

function wireResignDialog() {
  const dialog = byId("resign-dialog");
  byId("resign-cancel").addEventListener("click", () => dialog.close("cancel"));
  byId("resign-confirm").addEventListener("click", () => {
    const seat = Number(dialog.dataset.seat);
    dialog.close("resign");
    run(() => matchAction(seat, "match:resign"));
  });
}

/** The board, the actions and the queue as the current mode has them. */
function showPlay() {
  const view = page.view;
  const canAct = page.seatView !== null && view.status === "active";
  const legal = !canAct ? [] : page.preview ? (page.preview.open ? page.preview.legal_actions || [] : [])
    : page.refused ? [] : page.seatView.legal_actions || [];
  const svg = page.preview ? page.preview.svg : page.serverSvg;
  const previewing = Boolean(page.preview && page.preview.text);
  // A live update re-draws the buttons; a keyboard user's focus stays among them, not on <body>.
  const hadFocus = byId("actions").contains(document.activeElement) || byId("board").contains(document.activeElement);
  closeChooser();
  let boardNote = previewing ? t("Preview of your queued steps (not sent yet).") : "";
  try {
    if (!svg) throw new Error(page.boardProblem || t("There is no picture of this position; here it is in words."));
    showBoard(byId("board"), svg, legal.length ? (spot, indices) => spotPicked(spot, indices, legal) : null);
  } catch (err) {
    const text = (previewing ? page.preview.text : (page.seatView || view).text) || "";
    byId("board").replaceChildren(...(text ? [h("pre", { class: "board-text" }, text)] : []));
    boardNote = view.status === "waiting" ? t("The board appears once every seat is taken.") : `${boardNote} ${errorText(err)}`.trim();
  }
  byId("board-note").textContent = boardNote;
  byId("play").hidden = page.seatView === null || view.status !== "active";
  byId("actions-heading").textContent = page.seat === null ? t("Your actions") : t("Your actions as {name}", { name: seatName(view, page.seat) });
  page.shownLegal = legal;
  showActions(legal, (i) => run(() => pick(legal, i)));
  const note = byId("preview-note");
  if (page.preview && !page.preview.open) {
    note.textContent = `${sentence(page.preview.reason) || t("This move must be sent now.")} ${t("(Or clear it to start again.)")}`;
  } else if (page.refused) {
    note.textContent = t("Your move was not accepted (see the message above): remove steps or clear it, or send it again.");
  } else if (canAct && !legal.length && !page.queue.length) {
    note.textContent = t("You need not act now.");
  } else {
    note.textContent = "";
  }
  note.hidden = note.textContent === "";
  showQueue(page.queue, { canSend: canAct });
  byId("queue-box").hidden = !legal.length && !page.queue.length; // nothing to build: no empty form
  if (hadFocus && !byId("actions").contains(document.activeElement)) focusNext();
}

/** The server's reason as a sentence. */
function sentence(text) {
  const said = String(text || "").trim();
  if (!said) return "";
  return said.charAt(0).toUpperCase() + said.slice(1) + (/[.!?]$/.test(said) ? "" : ".");
}

function spotPicked(spot, indices, legal) {
  if (indices.length === 1) run(() => pick(legal, indices[0]));
  else openChooser(spot, indices, legal, (i) => run(() => pick(legal, i)));
}

/** Append a legal action to the queue and ask the server what the queue leads to. */
async function pick(legal, index) {
  let item = legal[index];
  if (legal !== page.shownLegal && item) {
    // The click was made on buttons that a live update or an earlier click's preview has since
    // replaced: it still counts if the same action is among the ones on screen now.
    const same = JSON.stringify(item.action);
    item = page.shownLegal.find((other) => JSON.stringify(other.action) === same);
    if (!item) {
      showStatus(t("The choices changed before your click was handled: choose again."));
      return;
    }
  }
  if (!item || page.view.status !== "active") return;
  clearError();
  showStatus("");
  if (!page.queue.length) page.queuePly = page.view.ply;
  page.queue.push({ action: item.action, text: item.text });
  await preview({ focusAfter: true });
}

/** Preview the whole queue; a refused step is taken off again and the server re-read. */
async function preview({ focusAfter }) {
  if (!page.queue.length) {
    page.preview = null;
    showPlay();
    return;
  }
  try {
    page.preview = await api("POST", `${base}/seats/${page.seat}/preview`,
      { body: { ply: page.queuePly, actions: page.queue.map((s) => s.action) }, signed: true });
    page.refused = false;
  } catch (err) {
    if (err.status === 404 || err.status === 405) {
      // A server without previews: the step stays queued and the player sends it as it is.
      page.preview = { open: false, reason: t("This server cannot preview queued steps: send the move to play it."),
        legal_actions: [], svg: page.serverSvg, text: null };
      showPlay();
      if (focusAfter) focusNext();
      return;
    }
    showError(err);
    page.queue.pop();
    page.preview = null;
    if (!page.queue.length) page.queuePly = null;
    await refresh();
    if (page.queue.length) await preview({ focusAfter });
    return;
  }
  showPlay();
  if (focusAfter) focusNext();
}

/** After a click the buttons are new: put focus on the next thing to do. */
function focusNext() {
  const next = byId("actions").querySelector("button.action");
  (next || byId("send")).focus();
}

async function send() {
  if (!page.queue.length || page.seat === null) return;
  clearError();
  const steps = page.queue.length;
  try {
    const result = await submitMove(matchId, page.seat, page.queuePly, page.queue.map((s) => s.action));
    dropQueue();
    showStatus(tn("Your move ({n} step) was accepted; the match is at ply {ply}.", "Your move ({n} steps) was accepted; the match is at ply {ply}.", steps, { ply: result.ply }));
  } catch (err) {
    showError(err); // the server's words; the queue stays so the player can fix it
    page.preview = null;
    page.refused = true;
  }
  await refresh();
  byId("turn").focus();
}

async function undoStep() {
  page.queue.pop();
  page.refused = false;
  if (!page.queue.length) page.queuePly = null;
  await preview({ focusAfter: true });
}

function clearQueue() {
  dropQueue();
  clearError();
  showPlay();
  focusNext();
}

function onEvent(event) {
  const view = page.view;
  noteEvents(event.events);
  if (event.type === "move") addHappened(movesHappened(view, event.accepted_ply, event.seat, event.events));
  else if (event.type === "started") addHappened((event.events || []).map((e, i) => ({ key: `start.${i}`, text: e.text })));
  else if (event.type === "finished") addHappened([{ key: "over", text: t("The game is over.") }]);
  else if (event.type === "aborted") addHappened([{ key: "aborted", text: t("The match was aborted.") }]);
  queueRefresh();
}

async function recentHappened(view) {
  if (view.status === "waiting" || view.ply === 0) return;
  const log = await api("GET", `${base}/log`, { query: `from=${Math.max(0, view.ply - HAPPENED_FROM_LOG)}` });
  for (const entry of log.entries || []) {
    noteEvents(entry.events);
    addHappened(movesHappened(view, entry.ply, entry.seat, entry.events));
  }
}

/** "El Capitán match abc123": the game's own title (GET /v1/games/{game}) in the heading and tab. */
async function showTitle(game) {
  const about = await api("GET", `/v1/games/${encodeURIComponent(game)}`);
  if (!about || !about.title) return;
  // the sentence is the page language's; the id stays a <code> inside it, wherever the language puts it
  const [before, after] = t("{game} match {id}", { game: about.title }).split("{id}");
  byId("match-title").replaceChildren(before, h("code", {}, matchId), after || "");
  document.title = `${about.title} ${matchId} · Portolan`;
}

async function start() {
  try {
    page.key = await keyShown;
    await refresh();
  } catch (err) {
    showError(err); // e.g. an unknown match: the server's words and nothing else
    if (!page.view) {
      byId("match").hidden = true;
      return;
    }
  }
  byId("match").hidden = false;
  run(() => showTitle(page.view.game));
  byId("send").addEventListener("click", () => run(send));
  byId("undo-step").addEventListener("click", () => run(undoStep));
  byId("clear-queue").addEventListener("click", () => run(clearQueue));
  wireResignDialog();
  await run(() => recentHappened(page.view));
  // the log read says how any departed seat left (resigned or forfeited): draw the clock again
  await run(() => showClock(page.view, page.mine, (seat) => seatName(page.view, seat), page.readAt));
  const live = (s) => s === "waiting" || s === "active";
  if (live(page.view.status)) {
    listen(matchId, page.view.status === "waiting" ? null : page.view.ply, {
      onEvent, currentPly: () => (page.view.status === "waiting" ? null : page.view.ply), wanted: () => live(page.view.status),
      onClosed: queueRefresh,
      // the seat this page plays listens signed: the server keeps its turn notices back meanwhile
      seat: page.seat,
    });
  }
}

start();
