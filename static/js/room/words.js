// A game's moves told in words from the viewer's side (the log, the combat flashes): army names,
// our own pieces' ranks, never a rank the viewer did not see.
import { t, seatName, rankName, winnerName } from '../i18n.js';
import { stationInfo } from '../geometry.js';
import * as S from './state.js';

/** "你的师长" / "西的棋子" / "东的工兵" (a rank the viewer saw, e.g. in an open mode). */
export function pieceWords(p) {
  if (!p || !p.seat) return t('piece_hidden', { seat: '?' });
  if (p.mine) return p.rank ? t('piece_mine', { rank: rankName(p.rank) }) : t('piece_mine_hidden');
  if (p.rank) return t('piece_seen', { seat: seatName(p.seat), rank: rankName(p.rank) });
  return t('piece_hidden', { seat: seatName(p.seat) });
}

/** Where a move went, in the board's own words. */
function whereWords(stn) {
  const s = stationInfo(stn);
  if (!s) return stn;
  if (!s.seat) return t('where_centre');
  const seat = seatName(s.seat);
  if (s.kind === 'camp') return t('where_camp', { seat });
  if (s.kind === 'hq') return t('where_hq', { seat });
  return t('where_region', { seat });
}

const capital = (x) => (x ? x[0].toUpperCase() + x.slice(1) : x);

/** A combat's outcome from our side: "东的棋子与你的工兵同归于尽", "你的师长吃掉了西的棋子", … */
export function combatWords(ev) {
  return capital(t('c_' + ev.combat, { a: pieceWords(ev.attacker), d: pieceWords(ev.defender) }));
}

/** A logged move: a combat, or where the piece went (rail when it went further than a step). */
export function moveWords(ev) {
  if (ev.combat) return combatWords(ev);
  const rail = ev.path && ev.path.length > 2 ? t('by_rail') : '';
  return capital(t('move_to', { a: pieceWords(ev.attacker || { seat: ev.seat }), where: whereWords(ev.to) })) + rail;
}

/**
 * How the game ended for this viewer, in words: {big ("你方获胜！"), cls (win / loss / none),
 * reason (told from our side, or null)}. The result box, the board's overlay and the log's last
 * line all say it this way, so they agree with each other and with the record.
 */
export function resultWords(s) {
  const r = S.result(s);
  const hf = S.isHiddenFront(s);
  const big = r.outcome === 'won' ? t(hf ? 'you_won_hf' : 'you_won') : r.outcome === 'lost' ? t(hf ? 'you_lost_hf' : 'you_lost')
    : r.outcome === 'winner' ? t('winner', { team: winnerName(r.winner) }) : r.outcome === 'draw' ? t('draw') : t('game_over');
  const cls = r.outcome === 'won' ? 'win' : r.outcome === 'lost' ? 'loss' : 'none';
  const why = S.reasonText(r);
  const reason = why ? t(why.key, why.team ? { team: t('team_' + why.team) } : why.seat ? { seat: seatName(why.seat) } : undefined) : null;
  return { big, cls, reason };
}
