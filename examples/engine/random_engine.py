#!/usr/bin/env python3
"""A random-moving Siguo engine: the engine protocol (docs/engine.md) outside Rust.

It plays either game (the four-player game and Hidden Front) with nothing but the Python
standard library: it deploys at random within the deployment rules, plays a uniformly random
legal move, and keeps the little state a real engine would start from (its seats, its own
pieces, the events seen). Run it against the built-in bots with

    siguo-tools selfplay --a-engine "python3 examples/engine/random_engine.py" --b random --games 2

Every line in is one JSON request; every answer is one JSON line out (flushed at once). Logs go
to stderr, never stdout.
"""
import json
import random
import sys

PROTOCOL = 2
SEATS = {"four_player": ["N", "E", "S", "W"], "hidden_front": ["S", "N"]}
# The 25 pieces of a seat (rules.md §3): the flag, 3 mines, 2 bombs and 19 others.
OTHERS = ["9", "8", "7", "7", "6", "6", "5", "5", "4", "4",
          "3", "3", "3", "2", "2", "2", "1", "1", "1"]
CAMPS = {("b", 2), ("d", 2), ("c", 3), ("b", 4), ("d", 4)}
HEADQUARTERS = [("b", 6), ("d", 6)]


def station(variant, seat, col, row):
    """A seat's local station (column a-e as the seat sees it, row 1 front to 6 back) in notation:
    four-player 'Sb6' (rules.md §2.1), Hidden Front 'B12' / 'D1' (hidden-front.md §2)."""
    if variant == "four_player":
        return f"{seat}{col}{row}"
    if seat == "S":
        return f"{col.upper()}{6 + row}"
    return f"{'EDCBA'['abcde'.index(col)]}{7 - row}"


def deploy(variant, seat, options, rng):
    """A random legal deployment: flag in a headquarters; mines in the last two rows (Hidden
    Front: not in a headquarters); bombs never in the front row (always legal)."""
    spots = [(c, r) for r in range(1, 7) for c in "abcde" if (c, r) not in CAMPS]
    pieces = {}
    flag = rng.choice(HEADQUARTERS)
    pieces[flag] = "F"
    back = [p for p in spots if p[1] >= 5 and p not in pieces]
    if variant == "hidden_front":
        back = [p for p in back if p not in HEADQUARTERS]
    for p in rng.sample(back, 3):
        pieces[p] = "M"
    behind = [p for p in spots if p[1] >= 2 and p not in pieces]
    for p in rng.sample(behind, 2):
        pieces[p] = "B"
    rest = [p for p in spots if p not in pieces]
    others = OTHERS[:]
    rng.shuffle(others)
    pieces.update(zip(rest, others))
    del options  # the rules above are legal under every room option
    return {"seat": seat, "pieces": {station(variant, seat, c, r): k
                                     for (c, r), k in pieces.items()}}


class Engine:
    def __init__(self):
        self.game = None  # the current game: variant, seats, own pieces, events
        self.rng = random.Random()

    def handle(self, msg):
        """The answers to one request (a list of dicts), and whether to stop."""
        kind = msg.get("type")
        if kind == "hello":
            if msg.get("protocol") != PROTOCOL:
                return [error("unsupported_protocol", f"this engine speaks {PROTOCOL}")], False
            return [{"type": "ready", "protocol": PROTOCOL, "name": "python random",
                     "options": {}}], False
        if kind == "new_game":
            return [self.new_game(msg)], False
        if kind == "event":
            if self.game is None:
                return [error("no_game", "no game: send new_game first")], False
            self.game["events"].append(msg["event"])
            return [], False
        if kind == "go":
            return [self.go(msg)], False
        if kind == "quit":
            return [], True
        return [error("unknown_type", f"unknown request type {kind!r}")], False

    def new_game(self, msg):
        variant = msg.get("variant")
        if variant == "siguo":
            variant = "four_player"
        if variant not in SEATS:
            return error("unsupported_variant", f"unknown variant {variant!r}")
        seats = msg.get("seats")
        if not isinstance(seats, list) or not seats or len(seats) > 2 \
                or any(s not in SEATS[variant] for s in seats) \
                or (len(seats) == 2 and (variant != "four_player"
                                         or {seats[0], seats[1]} not in ({"N", "S"}, {"E", "W"}))):
            return error("bad_seats", "one seat, or the two seats of one team")
        seed = msg.get("seed")
        if seed is not None:
            self.rng.seed(seed)  # seeds are at most 2^53 - 1: exact in any JSON reader
        options = msg.get("options", {})
        if msg.get("deploy"):
            mine = [deploy(variant, s, options, self.rng) for s in seats]
            answer = mine
        else:
            mine = msg.get("deployments", [])  # the driver deployed: our pieces, if it says
            answer = []
        self.game = {"variant": variant, "seats": seats, "events": [],
                     "pieces": {st: d["seat"] + k for d in mine for st, k in d["pieces"].items()}}
        log(f"new game: {variant} {seats}, {len(self.game['pieces'])} own pieces known")
        return {"type": "deployment", "deployments": answer}

    def go(self, msg):
        if self.game is None:
            return error("no_game", "no game: send new_game first")
        view = msg.get("view", {})
        if view.get("variant", "four_player") != self.game["variant"]:
            return error("bad_message", "the view is of another game")
        if view.get("turn") not in self.game["seats"]:
            return error("not_your_seat", "the seat to move is not one of this engine's seats")
        moves = [(f, t) for f, tos in sorted(msg.get("legal_moves", {}).items()) for t in tos]
        if not moves:
            return error("no_legal_moves", "go needs at least one legal move")
        # The view is the whole truth we may know: our pieces are those of our seats in it.
        self.game["pieces"] = {st: p for st, p in view.get("pieces", {}).items()
                               if p[0] in self.game["seats"]}
        frm, to = self.rng.choice(moves)
        return {"type": "move", "from": frm, "to": to}


def error(code, message):
    return {"type": "error", "code": code, "message": message}


def log(text):
    print(f"random_engine: {text}", file=sys.stderr)


def main():
    engine = Engine()
    for raw in sys.stdin.buffer:
        try:
            msg = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            answers, stop = [error("invalid_json", f"not valid JSON: {e}")], False
        else:
            if isinstance(msg, dict):
                answers, stop = engine.handle(msg)
            else:
                answers, stop = [error("invalid_json", "a request must be a JSON object")], False
        for a in answers:
            sys.stdout.write(json.dumps(a, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if stop:
            break


if __name__ == "__main__":
    main()
