"""A whole turn in one reply, through the real mail desk: a real Redis, the real commit, the real
answer job in a real RQ worker burst, the answers read back from a real SMTP sink. Each game's
turn is played by one reply in words and lands as ONE move holding every step's action; a
refused reply changes nothing at all (meta, log and state)."""

from __future__ import annotations

from typing import Any

from service.config import Settings
from service.games.base import Rng
from service.games.undo import UndoBlocked
from tests.conftest import SmtpSink
from tests.play.mail_desk import Table, body, mail_settings, open_table, reply, words

__all__ = ["mail_settings"]


def position(t: Table) -> tuple[Any, Any, int]:
    """The game, the stored rules state and the seat to act now."""
    meta = t.m.meta(t.match)
    return t.m.game_of(meta), t.m.state(t.match, meta), meta.active[0]


def state_dump(t: Table) -> dict[str, Any]:
    game, state, _ = position(t)
    return game.dump(state)


def one_turn(t: Table, text: str) -> tuple[dict[str, Any], str, str]:
    """Reply ``text`` to the mover's notice; assert the ply moved by exactly one move, by mail.
    Returns the move's log entry, the answer's words and its plain body."""
    seat, email = t.mover()
    ply = t.m.meta(t.match).ply
    account = t.desk.receive(reply(t.address("t", seat, ply), email, text))
    assert account.startswith("moved"), account
    assert t.m.meta(t.match).ply == ply + 1  # ONE move, however many steps
    [entry] = t.m.log(t.match, ply)
    assert entry["by"] == "email" and entry["seat"] == seat
    [answer] = t.answers()
    return entry, words(answer), body(answer)


def test_an_el_capitan_turn_in_one_reply_by_words(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink, "el-capitan")
    game, _, seat = position(t)
    view = t.m.view(t.match, seat)
    # the first turn buys a destination card, sails to its city and builds there
    card = next(row for row in view["legal_actions"] if row["action"]["card"].startswith("D"))
    city = card["text"].split("(")[1].split(",")[0]
    colour = game.seat_names(2)[seat].lower()
    text = f"Buy {card['action']['card']}, sail to {city}, build a {colour} warehouse on site 1, end"
    entry, said, plain = one_turn(t, text)
    actions = entry["envelope"]["actions"]
    assert [a["type"] for a in actions] == ["buy-card", "sail", "build-warehouse", "end-turn"]
    assert actions[0] == card["action"] and actions[1]["card"] == card["action"]["card"] and actions[2]["site"] == 1
    assert "accepted: your 4 steps, played in order as one move:" in said
    assert f"  1. {card['text']} \N{CHECK MARK}" in plain
    assert f"  2. sail to {city} with card {card['action']['card']}" in plain
    assert f"  3. build a {colour} warehouse in {city} on site 1 for " in plain
    assert "  4. end the turn \N{CHECK MARK}" in plain
    assert "What happened:" in said
    assert seat not in t.m.meta(t.match).active  # the whole turn is over: the other seat acts


def test_a_nauticus_turn_in_one_reply_by_words(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink)
    game, state, seat = position(t)
    # the action tiles lie in a random order: a space whose bonus is "of choice" asks for it first
    take_money = next(a for a in game.legal_actions(state, seat) if a["type"] == "choose-action"
                      and "Take money" in game.label_action(state, seat, a))
    after = game.apply(state, seat, take_money, Rng.from_seed("probe")).state
    bonus = [game.label_action(after, seat, a) for a in game.legal_actions(after, seat) if a["type"] == "take-bonus"]
    steps = ["choose take money", *bonus[:1], "take money with 2 workers", "end"]
    entry, said, plain = one_turn(t, "; ".join(steps))
    types = [a["type"] for a in entry["envelope"]["actions"]]
    assert types == ["choose-action", *(["take-bonus"] if bonus else []), "take-money", "done"]
    assert f"accepted: your {len(steps)} steps" in said
    assert f"  {len(steps) - 1}. take money with 2 workers \N{CHECK MARK}" in plain
    assert f"  {len(steps)}. end the turn \N{CHECK MARK}" in plain


def test_an_ophir_turn_in_one_reply_by_words(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink, "ophir")
    game, state, seat = position(t)
    while not any(a["type"] == "move" for a in game.legal_actions(state, seat)):  # barriers and the draft
        one_turn(t, "1")
        game, state, seat = position(t)
    # a move to a free hex (a ship there would roll the influence die), best one where goods can be gathered
    calm = sorted((a for a in game.legal_actions(state, seat) if a["type"] == "move"),
                  key=lambda a: not _gathers(game, _after(game, state, seat, a), seat))
    move = next(a for a in calm if _after(game, state, seat, a) is not None)
    after = _after(game, state, seat, move)
    hex_words = game.label_action(state, seat, move).split("(")[0].strip()  # "sail to the gems hex"
    gather = [game.label_action(after, seat, a) for a in game.legal_actions(after, seat) if a["type"] == "gather"]
    steps = [hex_words, *(["gather" if len(gather) == 1 else gather[0]] if gather else []), "End the turn."]
    entry, said, plain = one_turn(t, "\n".join(steps))
    assert entry["envelope"]["actions"][0] == move
    assert [a["type"] for a in entry["envelope"]["actions"]] == ["move", *(["gather"] if gather else []), "end-turn"]
    assert f"accepted: your {len(steps)} steps" in said and "  1. sail to the " in plain


def _after(game: Any, state: Any, seat: int, move: dict[str, Any]) -> Any:
    """The state after ``move`` if it draws and reveals nothing (so more steps may follow it in
    the reply) and the turn can gather or end after it, else None."""
    rng = Rng.from_seed("probe")
    after = game.apply(state, seat, move, rng).state
    types = {a["type"] for a in game.legal_actions(after, seat)}
    final = isinstance(game.undo_of(after), UndoBlocked)
    return after if not rng.draws and not final and types & {"gather", "end-turn"} else None


def _gathers(game: Any, after: Any, seat: int) -> bool:
    return after is not None and any(a["type"] == "gather" for a in game.legal_actions(after, seat))


def test_a_refused_reply_of_several_steps_changes_nothing(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink, "el-capitan")
    game, _, seat = position(t)
    email = t.m.meta(t.match).seats[seat].email
    view = t.m.view(t.match, seat)
    card = next(row for row in view["legal_actions"] if row["action"]["card"].startswith("D"))
    city = card["text"].split("(")[1].split(",")[0]
    before, state = t.snapshot(), state_dump(t)
    # "build a warehouse" fits four (two colours, two sites): nothing is played, not even the first steps
    text = f"buy {card['action']['card']}, sail to {city}, build a warehouse, end"
    account = t.desk.receive(reply(t.address("t", seat, before[0].ply), email, text))
    assert account.startswith("refused"), account
    assert t.snapshot() == before and state_dump(t) == state
    [answer] = t.answers()
    said, plain = words(answer), body(answer)
    assert "Nothing was done: step 3 (`build a warehouse`) fits 4 actions open after the steps before it" in said
    assert "name it more exactly, e.g. `build a " in said
    assert "None of your reply was played; before step 3 it would have played:" in said
    assert f"  1. {card['text']}" in plain and f"  2. sail to {city} with card {card['action']['card']}" in plain
    assert "What you can do now" in said  # the menu again, to retry
    # a step after the end of the turn: refused as a whole too
    colour = game.seat_names(2)[seat].lower()
    text = f"buy {card['action']['card']}, sail to {city}, build {colour} site 1, end, buy C09"
    assert t.desk.receive(reply(t.address("t", seat, before[0].ply), email, text)).startswith("refused")
    assert t.snapshot() == before and state_dump(t) == state
    [answer] = t.answers()
    assert "after step 4 (`end`: end the turn) your turn is over" in words(answer)
    assert "a whole turn in one reply" in words(answer)  # the rule it cites


def test_a_copied_menu_line_plays_that_line_only(mail_settings: Settings, smtp_sink: SmtpSink) -> None:
    t = open_table(mail_settings, smtp_sink, "el-capitan")
    _, _, seat = position(t)
    rows = t.m.view(t.match, seat)["legal_actions"]
    # a line whose price is itself a menu number ("buy card C24 (Valencia-Tanger) for 1")
    line = next(row for row in rows if row["text"].rsplit(" ", 1)[-1] in {str(n) for n in range(1, len(rows) + 1)}
                and row["text"] != rows[int(row["text"].rsplit(" ", 1)[-1]) - 1]["text"])
    entry, said, _ = one_turn(t, f"{line['text']}\n\nThanks!")
    assert entry["envelope"]["actions"] == [line["action"]]  # never also the item its price numbers
    assert f"accepted: {line['text']}." in said
