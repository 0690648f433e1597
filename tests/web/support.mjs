// Helpers shared by the reducer tests (not a test file: node --test runs *.test.mjs only).
import { reduce } from '../../static/js/room/state.js';

/** Freeze deeply, so that a reducer mutating its input state throws. */
export function frozen(x) {
  if (x && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) frozen(v);
  }
  return x;
}

/** Reduce a sequence of messages from a frozen state; every intermediate state is frozen too. */
export function run(state, ...msgs) {
  let s = frozen(state);
  for (const m of msgs) s = frozen(reduce(s, m));
  return s;
}
