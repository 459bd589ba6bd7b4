"""Small builders for Lines of Battle tests (not a test module)."""
from engine.lob.analysis import parse_combat


def combat_of(target, origin, attackers, defenders, **extra):
    """(ctx, attackers, defenders) from compact unit dicts on the Albuera map."""
    import json
    spec = {"target": target, "origin": origin, "attackers": attackers, "defenders": defenders}
    spec.update(extra)
    return parse_combat(json.dumps(spec))
