"""A city's building track: where the next warehouse goes, the run limit, shut-downs, payout value.

The occupied sites of a track always form one contiguous block ``lo..hi`` (forward building adds
at ``hi + 1``, shut-downs remove the front, backwards building adds at ``lo - 1``), so the whole
track is described by its 12 site colours plus the number of shut-downs so far.
"""

from __future__ import annotations

from .data import RUN_LIMIT, RUN_LIMIT_MAIN_2P, RUN_LIMIT_OWN_2P, CityData
from .state import FREE, City


def span(sites: tuple[int, ...]) -> tuple[int, int]:
    """(lowest, highest) occupied 1-based site; (0, 0) for an empty track."""
    lo = hi = 0
    for i, c in enumerate(sites):
        if c != FREE:
            if not lo:
                lo = i + 1
            hi = i + 1
    return lo, hi


def is_full_ended(sites: tuple[int, ...]) -> bool:
    """Whether the last site (12) has been occupied: from then on building goes backwards (§5.4 step 4)."""
    return sites[-1] != FREE


def payout_value(cd: CityData, sites: tuple[int, ...]) -> int:
    """``V``: the printed value of the space after the highest occupied site, or the hatched value
    once the last site is occupied (§6.2). 0 for an empty track."""
    _lo, hi = span(sites)
    if hi == 0:
        return 0
    if hi == len(sites):
        return cd.hatched
    return cd.track[hi]


def next_sites(city: City) -> tuple[int, ...]:
    """The 1-based sites where the next warehouse (build or re-open) may go (§5.4).

    * empty track: the first builder chooses site 1 or site 2;
    * the first warehouse went to site 2: the second must go to site 1;
    * forward: the site after the highest occupied one, while site 12 is empty;
    * after site 12 was occupied: backwards, the site before the lowest operating warehouse;
    * all 12 occupied: nowhere.
    """
    sites = city.sites
    lo, hi = span(sites)
    if hi == 0:
        return (1, 2)
    if city.shutdowns == 0 and lo == 2:
        return (1,)
    if sites[-1] != FREE:
        return (lo - 1,) if lo > 1 else ()
    return (hi + 1,)


def run_length(sites: tuple[int, ...], site: int, colours: frozenset[int]) -> int:
    """Length of the run of consecutive occupied sites with a colour in ``colours`` through 1-based ``site``
    (which is taken as already holding such a colour)."""
    i = site - 1
    n = 1
    j = i - 1
    while j >= 0 and sites[j] in colours:
        n += 1
        j -= 1
    j = i + 1
    while j < len(sites) and sites[j] in colours:
        n += 1
        j += 1
    return n


def run_limit_ok(sites: tuple[int, ...], site: int, colour: int, main: int | None, neutral: int | None) -> bool:
    """Whether placing ``colour`` on ``site`` keeps the run limits.

    3-5 players (``main`` is None): no run of more than 3 of one colour (§5.5).
    2 players: no run of more than 3 of the player's main colour, nor of more than 4 of the
    player's main and neutral colours mixed (§7; these replace §5.5).
    """
    if main is None or neutral is None:
        return run_length(sites, site, frozenset((colour,))) <= RUN_LIMIT
    if colour == main and run_length(sites, site, frozenset((main,))) > RUN_LIMIT_MAIN_2P:
        return False
    return run_length(sites, site, frozenset((main, neutral))) <= RUN_LIMIT_OWN_2P


def place(
    cd: CityData, city: City, site: int, colour: int, players: int
) -> tuple[City, int | None, int | None]:
    """Put a warehouse of ``colour`` on ``site``; returns (new city, shut-down colour or None, vacated site or None).

    A forward placement on a shut-down space closes the first operating warehouse of the chain
    (§5.6; re-opens too, R-8). Backwards placements never shut anything down (R-9). In Porto the
    closed warehouse leaves the game instead of going to the city picture (§8.2); the caller
    counts it as removed.
    """
    sites = list(city.sites)
    backward = sites[-1] != FREE
    sites[site - 1] = colour
    closed = city.closed
    shut: int | None = None
    vacated: int | None = None
    shutdowns = city.shutdowns
    if not backward and site in cd.shutdown_sites(players):
        for i, c in enumerate(sites):
            if c != FREE and i != site - 1:
                shut, vacated = c, i + 1
                sites[i] = FREE
                break
        if shut is not None:
            shutdowns += 1
            if "shutdown_removes_from_game" not in cd.special:
                cl = list(closed)
                cl[shut] += 1
                closed = tuple(cl)
    return City(tuple(sites), closed, city.harbours, city.forts, shutdowns), shut, vacated


def ranking(sites: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """Colours present on the track as (colour, count, lowest site), best first: more operating
    warehouses first, ties broken by the lowest-index warehouse (R-22)."""
    count: dict[int, int] = {}
    first: dict[int, int] = {}
    for i, c in enumerate(sites):
        if c != FREE:
            count[c] = count.get(c, 0) + 1
            if c not in first:
                first[c] = i + 1
    return sorted(((c, count[c], first[c]) for c in count), key=lambda t: (-t[1], t[2]))


def operating(sites: tuple[int, ...]) -> int:
    """Number of operating warehouses on the track."""
    return sum(1 for c in sites if c != FREE)
