"""A whole turn in one reply (service.play.mail.steps): the phrase matcher on the games' real
labels and the planner on real positions of El Capitán, Nauticus and Ophir. Pure units."""

from __future__ import annotations

from typing import Any

import pytest

from service.games.base import Rng
from service.games.undo import UndoBlocked
from service.play.mail.grammar import read
from service.play.mail.steps import Option, core_words, match_phrase, normal_words, plan
from tests.helpers.mail_turns import find_step, game, items, play, start
from tests.helpers.positions import positions

EC = game("el-capitan")
NAUTICUS = game("nauticus")
OPHIR = game("ophir")


def options(g: Any, state: Any, seat: int) -> list[Option]:
    return [Option(a, g.label_action(state, seat, a)) for a in g.legal_actions(state, seat)]


def labels(p: Any) -> list[str]:
    return [s.label for s in p.steps]


def el_capitan_with(card: str) -> tuple[Any, int]:
    """A first El Capitán position whose displays show ``card``."""
    for seed in range(200):
        state, seat = start(EC, 3, seed)
        if any(a.get("card") == card for a in EC.legal_actions(state, seat)):
            return state, seat
    raise LookupError(card)


# -- words ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("written", ["Tunis–Alexandria", "tunis-alexandria", "Tunis Alexandria", "TUNIS—alexandría",
                                     "tunis/alexandria!"])
def test_accents_case_dashes_and_punctuation_do_not_matter(written: str) -> None:
    assert normal_words(written) == ("tunis", "alexandria")


def test_filler_words_may_be_added_or_left_out() -> None:
    assert core_words("sail to the Tunis") == core_words("sail Tunis") == ("sail", "tunis")
    assert core_words("the") == ("the",)  # only fillers: kept, so "a" is not an empty phrase


# -- the matcher on El Capitán's real labels --------------------------------------------------------

def test_a_copied_menu_line_plays_its_own_card_and_never_the_item_its_price_numbers() -> None:
    state, seat = el_capitan_with("C27")
    menu = items(EC, state, seat)
    line = next(i for i in menu if i.action.get("card") == "C27")
    assert line.text == "buy card C27 (Napoli-Athina) for 1"  # the issue's own example
    got = play(EC, state, seat, "buy card C27 (Napoli-Athina) for 1")
    assert got.failure is None and got.actions == [line.action]  # C27 alone: not item 1 too
    assert menu[0].action != line.action
    # the same line written with other dashes, accents and case is the same step
    assert play(EC, state, seat, "Buy card c27 (Nápoli–Athina) for 1").actions == [line.action]


def test_tiers_exact_type_prefix_words_in_order() -> None:
    state, seat = start(EC, 3, 1)
    opts = options(EC, state, seat)
    d04 = next(o for o in opts if o.action.get("card") == "D04")
    assert match_phrase("buy card D04 (Venezia, 3 seals) for 5", opts).option == d04  # exact
    assert match_phrase("buy D04", opts).option == d04  # every word, in order
    assert match_phrase("buy card d04", opts).option == d04  # the start of the label
    assert match_phrase("Venezia buy", opts).option is None  # the words out of order name nothing
    several = match_phrase("buy-card", opts)  # the type: one per card on display
    assert several.option is None and len(several.candidates) == len(opts)


def test_numbers_in_a_phrase_are_exact_never_a_prefix_or_a_typo() -> None:
    state, seat = el_capitan_with("C27")
    opts = options(EC, state, seat)
    assert not any(o.action.get("card") in ("C2", "C72") for o in opts)
    for wrong in ("buy C2", "buy card C72", "buy C27 for 2", "buy C 27"):
        found = match_phrase(wrong, opts)
        assert found.option is None or found.option.action.get("card") != "C27", wrong
    assert match_phrase("buy C2", opts).option is None
    # the price after "for" is a free number; the same number elsewhere is not
    c27 = match_phrase("buy C27 for 1", opts).option
    assert c27 is not None and c27.action == {"type": "buy-card", "card": "C27"}
    assert match_phrase("buy 1 C27", opts).option is None


def test_small_typos_are_forgiven_only_when_one_action_is_clearly_meant() -> None:
    state, seat = start(EC, 3, 1)
    after = EC.apply(state, seat, {"type": "buy-card", "card": "D04"}, Rng.from_seed(0)).state
    after = EC.apply(after, seat, {"type": "sail", "card": "D04", "to": "venezia"}, Rng.from_seed(0)).state
    opts = options(EC, after, seat)
    site1 = match_phrase("build a warehouse on site 1", opts).option
    assert site1 is not None and site1.action == {"type": "build-warehouse", "site": 1}
    assert match_phrase("biuld a warehose on site 1", opts).option == site1  # two typos, one action
    assert match_phrase("buidl warehouse site 1", opts).option == site1  # two letters swapped
    # a bare number says which of the word before it: "site 2" is not "site 1 ... for 2"
    site2 = match_phrase("build site 2", opts).option
    assert site2 is not None and site2.action == {"type": "build-warehouse", "site": 2}
    assert match_phrase("build site 4", opts).option is None  # the price is 4: not a site
    ambiguous = match_phrase("biuld a warehose", opts)  # site 1 or 2: as close to both
    assert ambiguous.option is None and len(ambiguous.candidates) == 2
    assert match_phrase("bild site 1", opts).option is None  # a word of four letters: no typo forgiven
    assert match_phrase("bld wrhs", opts).option is None  # too far from anything


def test_typos_in_other_games_labels() -> None:
    state, seat = start(NAUTICUS, 2, 0)
    opts = options(NAUTICUS, state, seat)
    money = match_phrase("choose Take monney", opts).option
    assert money is not None and "Take money" in money.label
    deliver = match_phrase("chooose the acton Deliver goods", opts).option
    assert deliver is not None and "Deliver goods" in deliver.label


def test_the_qualifiers_of_a_label_count_only_after_the_words_that_name_it() -> None:
    """Words after a label's first "(" or comma qualify it: a phrase reaches them only once it
    named the label's head, so it never names an action by its side words."""
    labels = ["choose the action Buy goods (space 1: bonus 1 normal mast of choice; 2 blue workers for each "
              "player's turn)", "choose the action Take money (space 2: bonus 2 VP; 1 blue worker for each "
              "player's turn)"]
    opts = [Option({"type": "choose-action", "n": i}, text) for i, text in enumerate(labels)]
    assert match_phrase("buy mast", opts).option is None  # the Buy mast tile is not open: no guess
    assert match_phrase("buy goods", opts).option == opts[0]
    assert match_phrase("buy goods space 1", opts).option == opts[0]  # after the head: qualifiers count
    ophir = [Option({"type": "gather", "good": "gems"}, "gather one gem, throwing back cloth"),
             Option({"type": "gather", "good": "wood"}, "gather one wood, throwing back cloth")]
    assert match_phrase("gather cloth", ophir).option is None  # cloth is thrown back, not gathered
    assert match_phrase("gather gem", ophir).option == ophir[0]
    assert match_phrase("gather wood throwing back cloth", ophir).option == ophir[1]


# -- the planner -----------------------------------------------------------------------------------

def test_an_el_capitan_turn_by_words() -> None:
    state, seat = start(EC, 3, 1)
    got = play(EC, state, seat, "buy D04, sail to Venezia, build a warehouse on site 1, end")
    assert got.failure is None
    assert labels(got) == ["buy card D04 (Venezia, 3 seals) for 5", "sail to Venezia with card D04 (Venezia, 3 seals)",
                           "build a warehouse in Venezia on site 1 for 4", "end the turn"]
    assert [s.number for s in got.steps] == [1, 2, 3, 4]
    # the same turn by a menu number, then words; and with "then" between the steps
    first = next(i for i in items(EC, state, seat) if i.action.get("card") == "D04")
    assert play(EC, state, seat, f"#{first.number}, sail Venezia, build site 1, end").actions == got.actions
    assert play(EC, state, seat, "buy D04 then sail to Venezia then build on site 1 then end").actions == got.actions


def test_a_step_that_fits_several_actions_later_is_refused_by_name() -> None:
    state, seat = start(EC, 3, 1)
    got = play(EC, state, seat, "buy D04, sail to Venezia, build a warehouse, end")
    assert got.failure is not None and got.failure.number == 3 and got.failure.trouble == "words"
    assert len(got.steps) == 2  # what would have been played before it
    assert got.failure.sentence.startswith("step 3 (`build a warehouse`) fits 2 actions open after the steps before it")
    assert "name it more exactly, e.g. `build a warehouse in Venezia on site 1 for 4`" in got.failure.sentence
    at_first = play(EC, state, seat, "buy")
    assert at_first.failure is not None and "pick one by its number" in at_first.failure.sentence


def test_steps_in_the_wrong_order_are_refused() -> None:
    state, seat = start(EC, 3, 1)
    got = play(EC, state, seat, "buy D04, sail to Venezia, end, build on site 1")
    assert got.failure is not None and got.failure.number == 3 and got.failure.written == "end"
    assert "names no action open after the steps before it" in got.failure.sentence
    # the first sail comes from the card bought first
    assert play(EC, state, seat, "sail to Venezia, buy D04").failure is not None


def test_a_number_names_the_menu_the_mail_showed_and_must_be_open_at_its_step() -> None:
    state, seat = start(EC, 3, 1)
    menu = items(EC, state, seat)
    got = play(EC, state, seat, "1, 1")  # the same card twice: bought already at step 2
    assert got.failure is not None and got.failure.number == 2 and got.failure.trouble == "rules"
    assert got.failure.sentence.startswith(f"step 2 (`1`: {menu[0].text}) is not open after the steps before it")
    off = play(EC, state, seat, f"1, {len(menu) + 5}")
    assert off.failure is not None and f"there is no item {len(menu) + 5} in the menu" in off.failure.sentence


def test_a_step_after_the_end_of_the_turn_is_refused() -> None:
    state, seat = start(EC, 3, 1)
    got = play(EC, state, seat, "buy D04, sail Venezia, build site 1, end, buy C09")
    assert got.failure is not None and got.failure.trouble == "turn" and got.failure.number == 5
    assert got.failure.written == "buy C09"
    assert "after step 4 (`end`: end the turn) your turn is over" in got.failure.sentence
    assert len(got.steps) == 4


def test_a_chance_step_must_be_the_last_and_its_refusal_tells_nothing_of_the_outcome() -> None:
    # an Ophir move onto a hex with another ship: the influence die decides it (§5.2)
    state, seat, move = find_step(OPHIR, 3, range(6), lambda s, seat, a, after, drew:
                                  a["type"] == "move" and drew and seat in OPHIR.active_seats(after)
                                  and bool(OPHIR.legal_actions(after, seat)))
    label = OPHIR.label_action(state, seat, move)
    sentences = set()
    for seed in range(12):  # every outcome of the die: the same refusal, word for word
        got = plan(OPHIR, state, seat, Rng.from_seed(seed), read(f"{label}, end, gather").pieces,
                   items(OPHIR, state, seat))
        assert got.failure is not None and got.failure.trouble == "chance" and got.failure.number == 1
        sentences.add(got.failure.sentence)
    assert sentences == {f"step 1 (`{label}`: {label}) is decided by chance, so it must be the last step of a reply; "
                         "send the rest after seeing it"}
    # last, it is played
    alone = plan(OPHIR, state, seat, Rng.from_seed(1), read(label).pieces, items(OPHIR, state, seat))
    assert alone.failure is None and alone.actions == [move]


def test_a_step_that_reveals_a_card_must_be_the_last() -> None:
    state, seat, step = find_step(OPHIR, 3, range(8), lambda s, seat, a, after, drew:
                                  not drew and seat in OPHIR.active_seats(after)
                                  and isinstance(OPHIR.undo_of(after), UndoBlocked)
                                  and OPHIR.undo_of(after).why == "a market card was revealed")
    label = OPHIR.label_action(state, seat, step)
    got = play(OPHIR, state, seat, f"{label}, end")
    assert got.failure is not None and got.failure.trouble == "chance"
    assert "cannot be taken back (a market card was revealed), so it must be the last step" in got.failure.sentence
    assert play(OPHIR, state, seat, label).actions == [step]


def test_undo_is_a_step_like_any_other() -> None:
    state, seat = start(EC, 3, 1)
    got = play(EC, state, seat, "buy D04, undo, buy D13, sail to Tanger, build a warehouse on site 2, end")
    assert got.failure is None, got.failure
    assert labels(got)[1] == "undo your last step" and "D13" in labels(got)[2]


def test_undo_back_to_a_turn_start_after_a_die_roll_is_not_a_step_that_reveals() -> None:
    state, seat, move = find_step(OPHIR, 3, range(8), lambda s, seat, a, after, drew:
                                  a["type"] == "move" and drew and seat in OPHIR.active_seats(after)
                                  and any(b["type"] == "gather" for b in OPHIR.legal_actions(after, seat)))
    rolled = OPHIR.apply(state, seat, move, Rng.from_seed(3)).state  # the reply before: the die was rolled
    assert isinstance(OPHIR.undo_of(rolled), UndoBlocked)
    got = play(OPHIR, rolled, seat, "gather, undo, end")
    assert got.failure is None, got.failure
    assert [s.action["type"] for s in got.steps] == ["gather", "undo", "end-turn"]


def test_a_nauticus_turn_and_a_copied_label_with_a_comma() -> None:
    state, seat = start(NAUTICUS, 2, 0)
    got = play(NAUTICUS, state, seat, "choose take money, take money with 2 workers, end")
    assert got.failure is None, got.failure
    assert labels(got)[1:] == ["take money with 2 workers", "end the turn"]
    # "pass, then play the extra action: Buy goods" is one label: copied, it is one step
    after = NAUTICUS.apply(state, seat, got.actions[0], Rng.from_seed(0)).state
    line = next(o.label for o in options(NAUTICUS, after, seat) if o.label.startswith("pass, then"))
    twice = plan(NAUTICUS, after, seat, Rng.from_seed(0), read(line).pieces, items(NAUTICUS, after, seat))
    assert twice.failure is None and labels(twice) == [line]


def test_an_ophir_turn_by_words() -> None:
    state, seat, move = find_step(OPHIR, 3, range(6), lambda s, seat, a, after, drew:
                                  a["type"] == "move" and not drew and seat in OPHIR.active_seats(after)
                                  and any(b["type"] == "gather" for b in OPHIR.legal_actions(after, seat)))
    hex_words = OPHIR.label_action(state, seat, move).split("(")[0]  # "sail to the stone hex "
    got = play(OPHIR, state, seat, f"{hex_words}, gather, End the turn.")
    assert got.failure is None, got.failure
    assert [s.action["type"] for s in got.steps] == ["move", "gather", "end-turn"]


def test_a_phrase_longer_than_any_label_is_refused_unread() -> None:
    state, seat = start(EC, 3, 1)
    got = play(EC, state, seat, "buy " * 200)
    assert got.failure is not None and "too long to be one step" in got.failure.sentence


@pytest.mark.parametrize(("game_id", "players"), [("el-capitan", 3), ("el-capitan", 2), ("nauticus", 2),
                                                  ("nauticus", 3), ("ophir", 2), ("ophir", 4)])
def test_every_copied_menu_line_plays_its_own_action_and_nothing_else(game_id: str, players: int) -> None:
    """Over positions spread across seeded games: each menu line, copied into a reply as it is
    (commas, "then", digits and all), and written again in other case and dashes, is one step:
    its own action. Two lines alike would be refused as ambiguous, never guessed."""
    g = game(game_id)
    seen = 0
    for state, seat in positions(g, players, 12, f"copied-{game_id}-{players}"):
        menu = items(g, state, seat)
        texts = [i.text for i in menu]
        for item in menu:
            for written in (item.text, item.text.upper().replace("-", " – ")):
                got = plan(g, state, seat, Rng.from_seed(0), read(written).pieces, menu)
                if texts.count(item.text) > 1:
                    assert got.failure is not None and got.steps == (), written
                    continue
                assert got.failure is None and got.actions == [item.action], (written, got.failure)
                seen += 1
    assert seen > 100
