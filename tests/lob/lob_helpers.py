"""Small builders for Lines of Battle tests (not a test module)."""
from hypothesis import strategies as st

from engine.lob.analysis import parse_combat

# (target, origin) pairs on the Albuera map: open-open with approach, into the town over the bridge,
# into a wood over a stream, a hill
BORDERS = [("15", "16"), ("15", "23"), ("Albuera", "17"), ("65", "25"), ("23", "24"), ("16", "19")]


def combat_of(target, origin, attackers, defenders, **extra):
    """(ctx, attackers, defenders) from compact unit dicts on the Albuera map."""
    import json
    spec = {"target": target, "origin": origin, "attackers": attackers, "defenders": defenders}
    spec.update(extra)
    return parse_combat(json.dumps(spec))


@st.composite
def unit(draw, uid, attacker, target, most_rating=4, defender_kinds=("inf", "cav", "art")):
    """A compact unit dict for :func:`combat_of` (hypothesis): infantry or cavalry attacking; a defender of
    ``defender_kinds`` (artillery deployed only outside the town and the hill); ratings 1 to ``most_rating``."""
    kind = draw(st.sampled_from(["inf", "cav"] if attacker else list(defender_kinds)))
    if kind == "art":
        return {"uid": uid, "kind": "art", "deployed": draw(st.booleans()) and target not in ("Albuera", "65")}
    rating = draw(st.integers(1, most_rating))
    u = {"uid": uid, "kind": kind, "rating": rating, "hits": draw(st.integers(0, rating - 1))}
    if kind == "cav":
        u["cav"] = draw(st.sampled_from(["heavy", "light", "lancer"]))
    return u
