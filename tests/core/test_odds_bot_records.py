"""The odds bot picks what it picked before its speed work (issue 26 point 4): whole bot games, the odds
bot against the greedy bot (either seat) and against itself, for several seeds of every system, replay to
the very same record.

Each digest is the sha256 of the game's record events (``json.dumps(events, sort_keys=True)``: every
action, every die, every answer to a question inside a procedure), with the number of actions beside it.
Any changed pick (an attack weighed to another value, an attack found too big where it was not, another
tie broken, another answer inside an attack) changes the record from that action on, so the digest.

How they were made: first at commit 4284ca7, before engine/core/odds.py was changed; the changed bot gave
the same 52 records there. Then the issue 29 readings changed the games themselves (engine versions
n20-game-5, tbf-game-2, bc-game-3: 24 of the 52 records, every TBF one), so they were made again at
213e6b2 with the changed bot, and the bot as it was before (its cache and its evaluation of the position
put back) gave the same 52 records there too. A rule fix that changes records changes these as well:
make them again with ``python tests/core/test_odds_bot_records.py`` and say so in the commit.

Battle Commander: the bot used to weigh an attack over the cards themselves, where every one was past its
bound (4,000 steps), so it played as the greedy bot did (seeds 1-4: the same record in either seat). Since
it weighs from the card summaries (odds_state, issue 26 point 4; the same exact values) many fit the bound
(odds against greedy, seed 1: 17 of the 34 attacks it weighed), so it now decides for itself: the 13 BC
digests were made again at that change (12 changed; bc:greedy,odds:2 did not), and the 39 of n20, LoB and
TBF stayed the same. The combat's card steps (engine/bc/combat.py read_combat_card, issue 26) cut the
steps of a BC attack again, so one more attack fits the bound: in bc:odds,odds:3 the French Fire from M2 on
E2, at one of the bot's decisions, took 3,088 steps (past 4,000 before) and was weighed, which changed the
game from there; every value weighed before that point is the same number. Only that digest was made again
(the other 12 BC games are unchanged).

These Brave Fellows: since a fight that ends the turn is enumerated as chains (issue 26, Speed: the fight and
the end of the turn worked out once per position reached; the same end positions with the same fractions,
tests/tbf/test_tbf_turn_end_odds.py) such an attack takes fewer enumeration steps, and one the bot used to find
past its bound now fits: the Coalition's melee by ci-1 and ci-4 at 2014 on turn 2 (4,001 steps, past the
4,000 bound, so "too big" and the greedy bot's pick played; now 3,706 steps, weighed at -0.854). It is the
first difference in each of the four records that changed (tbf:greedy,odds:2 and 3, tbf:odds,odds:2 and 3,
made again there); the other nine TBF records and every other system's stayed the same. Since a melee's
effect on the units is a chain of steps shared by the outcomes that differ only in the leaders' fates (issue
26, tests/tbf/test_tbf_melee_results_odds.py), one more melee fits: in tbf:greedy,odds:1 the Coalition's
melee by ci-1 and ci-3 at 1616 took 4,001 steps ("too big") and now 3,425 (weighed at -0.148); every value
weighed before it is the same number (and each of the 28 before it took fewer steps or as many); only that
digest was made again.

Lines of Battle: since the combat rounds' exact odds go round by round (engine/lob/rounds.py ``Stepwise``,
issue 26: the same end positions, fractions and order, tests/lob/test_lob_rounds_odds.py) an attack takes
far fewer enumeration steps (a 3 against 12 fight in Albuera 108,941 -> 6,143), so attacks the bot used to
find past its bound (4,000 steps) are weighed now, which changes its picks from there (and the greedy bot's
sampled charges met in those enumerations draw their seeds from its generator). Checked before the 7
changed LoB digests were made again (lob:greedy,odds:1-5, lob:odds,odds:2 and 3; the other six stayed the
same): the bot weighing every attack both ways in those games got the same float for each of the 1,893
attacks that fit the bound both ways, 39 fit now that were too big before (none the other way), and
deciding by the old way's values, bound and steps gave the old digests of all of them.

Battle Commander again (issue 26, Speed): the combat after its set-up is a chain of steps in odds (23.1 step 6,
23.2-23.5, 23.5-24.1, 27.10-27.11) and the Fate of War draws read the pile by the classes of icons the table
tells apart (engine/bc/combat.py; the same fractions, tests/bc/test_bc_card_steps_odds.py), so a BC attack
takes 3-7 times fewer steps and attacks past the bot's unchanged 4,000-step bound before now fit. Eight records
changed (bc:odds,greedy:1-5, bc:odds,odds:1-3); in each, logged with the bot as it was and as it is
(every attack weighed, with its value), the first difference is one attack "too big" before and weighed now
(the French Fire from M3 on E3 in six, the Coalition assault from E3 on M3 in odds,odds:1 and 3), every value
weighed before it the same number; the five greedy,odds records are unchanged.

Battle Commander, the cards by their classes of icons (issue 26, Speed): each card of a combat is read in odds only
as the class of icons the rest of the combat tells apart, and the Square check card by its class alone
(engine/bc/readings.py, engine/bc/odds_piles.py; the same fractions: tests/bc/test_bc_icon_classes.py), so an
attack takes about half the steps again and attacks past the bot's unchanged 4,000-step bound before now fit.
Five records changed (bc:greedy,odds:5, bc:odds,greedy:2, 3 and 4, bc:odds,odds:3). Logged with the bot as it was
and as it is (every attack weighed, with its value), in each of them the first difference is one attack "too big"
before and weighed now (a Coalition assault from M2 on M3 in greedy,odds:5, a French Ordre Mixte assault in the
three odds,greedy games, the French assault from M3 on E3 in odds,odds:3); every value weighed before it is the
same fraction, its float the same but in the last bit for a few (the end positions are met in another order and
the bot adds their floats in that order: no pick changed by it in any of the 13 games), and the bot deciding by
the values it weighed before gives the five old digests again. The other eight BC records are unchanged.

Cheap games run by default, the rest under ``-m slow``."""
from __future__ import annotations

import hashlib
import json
import sys

import pytest

from engine.core.game import play_game, system_of

#: "system:bots:seed" -> (actions in the game, sha256 of its record events), made at 213e6b2 (see above)
GAMES = {
    "bc:greedy,odds:1": (264, "986c504064de2cc64be51828e40498a063a23197ead25787a9c5b731339caedd"),
    "bc:greedy,odds:2": (291, "aa668f591d8c8a07e15cb0aae77fab44d0b73e6e1c7163ace1d27beb5d51e7b8"),
    "bc:greedy,odds:3": (267, "ea1c429ef8a1d5d72fdb1f4af5ab537f19d41b6ea2368757b363776e7ac907bb"),
    "bc:greedy,odds:4": (209, "2739d43f6a68f61ad32e81ce797ea356e0fd350eed9af776bf8f2f78760cd6d0"),
    "bc:greedy,odds:5": (241, "71c6b6bdfb33ac1a88b1f10048882c6be9137b123b1c4453cedda59a08180852"),
    "bc:odds,greedy:1": (278, "b996bfc7052b52209591a5b1f5e46c79f976b15fd841d74317033949068c96f4"),
    "bc:odds,greedy:2": (225, "6e3ba3ceef0f6c1c7058618a263b59d4bfdf9a03c506b969db0137b7ddd92ad4"),
    "bc:odds,greedy:3": (265, "c0b5bb4bd533ea0b947f1d6c3e282d091d7d7e156a64d78cd1a7c27a924e9b06"),
    "bc:odds,greedy:4": (238, "b117877f3e95bda8d142ab9cf0dc20181beb17847712f153691f4b6888ac7165"),
    "bc:odds,greedy:5": (248, "d66c8a6582bdc046c3f93ef65abc52fc15dc6e96781940335500e7182fb64519"),
    "bc:odds,odds:1": (285, "c58014929c09b77af0e254a528620ed59c81ed872ea199c333e9c8f1aeb46baa"),
    "bc:odds,odds:2": (260, "ee0d818a7f60e00793817aa07b2ab06bfcb9e6f2be15821999d3ccd105fd3d9c"),
    "bc:odds,odds:3": (273, "7680dedf93e1051070c0549ead2a88fb12a8f112bcfacf8962abe0b178efec85"),
    "lob:greedy,odds:1": (130, "3c315a957a4ba920b7e3531b13693a3c7e9a9443e5d1b1652dec9dfb3510f5bd"),
    "lob:greedy,odds:2": (98, "ee88ef2b4d8f5be41b0d5b21c92eaa92002f3705eccb77de0e60f191316426cd"),
    "lob:greedy,odds:3": (145, "e5053eecc3aae7d7842a43f07ba9670e79c71245e0cc8acca7e31e26d65859fe"),
    "lob:greedy,odds:4": (146, "4c753b40014ddda707ecd368ce6bf9d178b55e08b5703b2fbc1576c4a5b81b90"),
    "lob:greedy,odds:5": (263, "133a401e7126d74c717b86fe6d47c8da2c7ddf1c515118c489c3e66ad9cdc8e5"),
    "lob:odds,greedy:1": (80, "9186b692f75a35d292e3ed27e447acfd821f5e0852f2f8f9fed23e7faefd0dff"),
    "lob:odds,greedy:2": (96, "f8525da60a88e729533affca219c78cb887437cf94c9ecfca872e1d8e3e9a311"),
    "lob:odds,greedy:3": (123, "997bd7565cc28f906be1fbe7761570f707b92e1c7c811c5e0f52fbcf3fe79b2c"),
    "lob:odds,greedy:4": (287, "40ac25c5442e870b673c8271b89cea2202542e87c483953971949bea96213a63"),
    "lob:odds,greedy:5": (103, "13cd5bdc80d0af6564f87fdb4583697a16fca78f98ab2e1c5ab80d1c4accac15"),
    "lob:odds,odds:1": (218, "3526a8c3d85d567b9c3c92919947d4f5e7e2bdd979c80b490f2123ec2f4ecd74"),
    "lob:odds,odds:2": (99, "c6d6e36f28398e228a0fa9f50d1ab865c01e6c6206a69bbb281b05e1742a27cd"),
    "lob:odds,odds:3": (275, "ecb84e78651a0c26a94bf144a5c28b585bb9f3347f98e88332ab7e321c643d15"),
    "n20:greedy,odds:1": (452, "f514c95fd8fcd59cf00779725eccf309148706541cc614789e83cc3bcf808d88"),
    "n20:greedy,odds:2": (427, "3ed878bb8354472844e76855908aaa90b8e874ed62ef7ef955a997b85ed8d037"),
    "n20:greedy,odds:3": (468, "4458e45dadf75ccc3cb9c9e3ed69a3b6cea2e6f9b9e482a6f2544c0da4c4e0b8"),
    "n20:greedy,odds:4": (169, "8053f8cfd8aeaf12bf0dfd02508d5f59e7bb02ba78110d90e7369fb629732460"),
    "n20:greedy,odds:5": (397, "43c8b0e9d1fb8437f8a8856fee2c52a48e5183fe912775a8f4c196eeab28d220"),
    "n20:odds,greedy:1": (421, "3975c782374ffc655abf28e539a918a282f932e3c9a4fef5ff3238a39146cff9"),
    "n20:odds,greedy:2": (412, "73cfeef83bd1eb6888d6b5900204e111f50f0dff9965f77df84573d19f01fceb"),
    "n20:odds,greedy:3": (334, "bca156e0aa87cdbde6938b5017b4301124ad07693b786cf2209ab849674d0554"),
    "n20:odds,greedy:4": (431, "adfd1f4224f2442388b502f84faa91129cc66a20606c998189823aff2a696854"),
    "n20:odds,greedy:5": (397, "f78a6cb6ad5e0ca55c0c5caa5556f1cefd48045df73e8f9774abcd3e30d844e2"),
    "n20:odds,odds:1": (77, "b375ee2fedc27907c50376d8d6bfa258d632aafc97c15c02843f1bf2858efa1d"),
    "n20:odds,odds:2": (451, "e01f254b8fb04c92fb41f9d075aef8daeb080657a519a88cc3c6e5ae38f3eba1"),
    "n20:odds,odds:3": (415, "77d4c4dff6fc9c4f080b206ded8ced307d9949fc998eec0ed6639196ea63b7f7"),
    "tbf:greedy,odds:1": (602, "a64c000d7f79ac455c1ccc6d92df6c4d79f924daae9a6877379b9cb72b92fc0d"),
    "tbf:greedy,odds:2": (183, "accaa58bd0f5f2dffd5f10e235ebd1d8d3d8f20ac4d3593581766d8658597bbd"),
    "tbf:greedy,odds:3": (614, "2e04ed7f2e4da20916f6b3313aacfc0cbe27254b405aea83a8f63df9af46a667"),
    "tbf:greedy,odds:4": (652, "8d360f3dc470127638eba1e8c12af8ff18d0f0ed2a3e9e05161f864765e029b5"),
    "tbf:greedy,odds:5": (683, "faee446e25e7c370bc9fd39153f7cb76d2531a0c22fdd762fcbfb9721c7701b8"),
    "tbf:odds,greedy:1": (717, "bfe6dc14768dc654e3d3af08619358da81618d803a43c77e421d5e26ebec19b7"),
    "tbf:odds,greedy:2": (709, "cfd3caadff87cb3c579aadaa9fa71e8055aef6b6ab4ed8f0bf361e971e0bca16"),
    "tbf:odds,greedy:3": (741, "a5fed577b01b52e15244d105e205466ad8c6ef6444d6294ca3137cd80a233eb4"),
    "tbf:odds,greedy:4": (654, "7ecf77e8b1ab331ba80c90d09dedc7d2e94786913653c546a46037c41e3b4869"),
    "tbf:odds,greedy:5": (691, "7f6ab124cfd70d34dd40431001a21bedc8eba25aede560c11dfd31884730e41f"),
    "tbf:odds,odds:1": (616, "64435458209eafc81f2b030d175a826bc52597f6701b3f822bf3187d496c21fd"),
    "tbf:odds,odds:2": (183, "0832f1caed6747925d164cf5d6997b6bcd68ebc51d4a3018309201db5773e537"),
    "tbf:odds,odds:3": (238, "2a2d1da778f605f2159fb5446026290903f3afda92232a4e2da249643cd4e6cf"),
}

#: run by default (about 7 s of CPU together on this machine); every other game is marked slow
FAST = ("n20:odds,greedy:1", "n20:greedy,odds:2", "lob:odds,greedy:1", "lob:odds,greedy:5",
        "tbf:odds,greedy:3", "tbf:greedy,odds:4", "bc:greedy,odds:4")


def record_digest(key: str) -> tuple[int, str]:
    system, bots, seed = key.split(":")
    _, rec = play_game(system_of(system), tuple(bots.split(",")), seed=int(seed))
    events = json.loads(json.dumps(list(rec.events), sort_keys=True))
    return len(events), hashlib.sha256(json.dumps(events, sort_keys=True).encode()).hexdigest()


@pytest.mark.parametrize("key", [k for k in GAMES if k in FAST] +
                         [pytest.param(k, marks=pytest.mark.slow) for k in GAMES if k not in FAST])
def test_odds_bot_game_record_is_unchanged(key):
    assert record_digest(key) == GAMES[key]


def test_the_fast_games_are_listed_games():
    assert set(FAST) <= set(GAMES)
    assert {k.split(":")[0] for k in FAST} == {"n20", "lob", "tbf", "bc"}


if __name__ == "__main__":                  # print the table again (after a rule fix that changes records)
    import engine.systems  # noqa: F401
    for k in sorted(sys.argv[1:] or GAMES):
        n, digest = record_digest(k)
        print(f'    "{k}": ({n}, "{digest}"),')
