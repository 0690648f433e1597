// The ladder helpers of the web client: the rating as shown, which ladder's title a room shows,
// the rating-history chart's geometry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ratingText, ratingWithChange, ladderOf, chartGeometry, LADDERS } from '../../static/js/ladder-core.js';

test('a rating is shown rounded, with ? while provisional', () => {
  assert.equal(ratingText({ rating: 1523.49, provisional: false }), '1523');
  assert.equal(ratingText({ rating: 1662.5, provisional: true }), '1663?');
  assert.equal(ratingText(null), '–');
});

test('a new rating with the change of its game, rounded, with a real minus sign', () => {
  assert.equal(ratingWithChange({ rating: 1337.6, provisional: true }, -162.4), '1338? (\u2212162)');
  assert.equal(ratingWithChange({ rating: 1512, provisional: false }, 11.5), '1512 (+12)');
  assert.equal(ratingWithChange({ rating: 1500, provisional: false }, 0.2), '1500 (\u00b10)');
  assert.equal(ratingWithChange({ rating: 1500, provisional: false }, null), '1500');
});

test('every ladder, and the one a game belongs to', () => {
  assert.deepEqual(LADDERS, ['ranked', 'ranked_dual', 'hf_ranked']);
  assert.equal(ladderOf('hf_ranked', 'hidden_front'), 'hf_ranked');
  assert.equal(ladderOf('casual', 'hidden_front'), 'hf_ranked');
  assert.equal(ladderOf('ranked_dual', 'four_player'), 'ranked_dual');
  assert.equal(ladderOf('practice', 'four_player'), 'ranked');
});

test('the chart puts the oldest game left and the highest rating on top', () => {
  const g = chartGeometry([{ rating: 1500 }, { rating: 1700 }, { rating: 1600 }], 240, 120, 20);
  assert.deepEqual(g.xy, [[20, 100], [120, 20], [220, 60]]);
  assert.equal(g.points, '20,100 120,20 220,60');
  assert.deepEqual([g.min, g.max], [1500, 1700]);
  // a flat history still gets a range of 100, centred
  const flat = chartGeometry([{ rating: 1500 }], 240, 120, 20);
  assert.deepEqual([flat.min, flat.max, flat.xy], [1450, 1550, [[120, 60]]]);
  assert.equal(chartGeometry([], 10, 10).points, '');
});
