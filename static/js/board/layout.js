// How each board is laid out in SVG user units (pure: no DOM): station positions for a viewer,
// piece size, the size of the drawing, the region backgrounds, the mountains and where the name
// plates go.
import { SEATS, STATIONS, boardOf, quarterTurns } from '../geometry.js';

export const U = 40; // grid unit in SVG user units

/** The layout of the board of `variant` ("four_player" | "hidden_front"). */
export function layoutOf(variant) {
  const board = boardOf(variant);
  return board.variant === 'hidden_front' ? hiddenFrontLayout(board) : crossLayout(board);
}

/** Hidden Front: wide columns (pieces are wide), a gap at the front, a plate band above and below. */
function hiddenFrontLayout(board) {
  const CX = 1.6, MX = 0.9, PLATE = 1.7, MY = 0.55, FRONT = 0.9;
  const width = (4 * CX + 2 * MX) * U;
  const height = (11 + FRONT + 2 * (PLATE + MY)) * U;
  return {
    board, width, height, pw: U * 1.36, ph: U * 0.66, compactPlates: true,
    // the box around a station that a tap on it may hit: the pitch of the grid
    cellW: CX * U, cellH: U,
    xy(name, bottom) {
      const [gx, gy] = board.place(name, bottom);
      return [(MX + gx * CX) * U, (PLATE + MY + gy + (gy >= 6 ? FRONT : 0)) * U];
    },
    regions: [['N', 'A1', 'E6'], ['S', 'A7', 'E12']],
    centre: null,
    /** The mountains between the halves at columns B and D. */
    mountains: [['B6', 'B7'], ['D6', 'D7']],
    plateBox(side) {
      const y = side === 'bottom' ? height - PLATE * U + U * 0.05 : U * 0.15;
      return [U * 0.2, y, width - U * 0.4, PLATE * U - U * 0.2];
    },
    /** Where a seat's chat line shows for a moment: over its plate's name, not its clock. */
    bubbleBox(side) {
      const [x, y, w, hh] = this.plateBox(side);
      return [x + U * 0.3, y, w - U * 2.4, hh];
    },
  };
}

/** The four-player cross: plates in its empty corners. */
function crossLayout(board) {
  const GAP = 0.1; // extra spacing between the regions and the centre, in units
  const MARGIN = 0.5;
  const coord = (v) => (v + (v >= 11 ? GAP : 0) - (v <= 5 ? GAP : 0) + GAP + MARGIN) * U;
  const size = (16 + 2 * GAP + 2 * MARGIN) * U;
  const corners = { bottom: [11, 11], left: [0, 11], top: [0, 0], right: [11, 0] };
  return {
    // Pieces nearly fill the space between neighbouring stations: as large as the board allows.
    board, width: size, height: size, pw: U * 0.95, ph: U * 0.62, compactPlates: false,
    // the box around a station that a tap on it may hit: the pitch of the grid (40 × 40 CSS px
    // once the board is drawn at 1 px a unit, as zoomed in on a phone)
    cellW: U, cellH: U,
    xy(name, bottom) {
      const [gx, gy] = board.place(name, bottom);
      return [coord(gx), coord(gy)];
    },
    /** The centre of an arc's quarter circle: the empty corner between the two regions. */
    arcCentre(a, b, bottom) {
      const sa = STATIONS.get(a), sb = STATIONS.get(b);
      let x = Math.abs(sa.x - 8) > Math.abs(sb.x - 8) ? sa.x : sb.x;
      let y = Math.abs(sa.y - 8) > Math.abs(sb.y - 8) ? sa.y : sb.y;
      for (let i = 0; i < quarterTurns(bottom); i++) [x, y] = [16 - y, x];
      return [coord(x), coord(y)];
    },
    regions: SEATS.map(seat => [seat, seat + 'a1', seat + 'e6']),
    centre: ['Ca1', 'Cc3'],
    mountains: [],
    plateBox(side) {
      const [gx, gy] = corners[side];
      const w = U * 4.8, hh = U * 2.5;
      return [gx ? size - U * 0.35 - w : U * 0.35, gy ? size - U * 0.35 - hh : U * 0.35, w, hh];
    },
    /** Where a seat's chat line shows for a moment: beside its plate, in the same empty corner. */
    bubbleBox(side) {
      const [x, y, w, hh] = this.plateBox(side);
      const bh = U * 2.5;
      return [x, corners[side][1] ? y - U * 0.15 - bh : y + hh + U * 0.15, w, bh];
    },
  };
}
