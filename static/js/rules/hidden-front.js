// The rules page of 两人军棋 (Hidden Front, hidden-front.md), in our own words: Chinese and
// English. Data only, drawn by pages/rules.js; pieces, moving and combat as in the four-player game.

export const zh = [
  ['board', '棋盘', [
    '5 列 × 12 行，共 60 个位置。南方（红方）在下半边，北方在上半边，各占 6 行。南方先走，双方轮流，每次一步。',
    ['每方最后一排的第 2、4 列是大本营；每方有 5 个行营。', '第 2、6、7、11 行整行，以及最左、最右两列（最后一排除外）是铁路，其余连线是公路。',
      '两方之间只有左、中、右三条通道，都是铁路；第 2、4 列之间隔着山界，不能通过。', '行营和大本营的规则同四国军棋：行营里的棋子不会被攻击，有棋子的行营谁都不能进；进了大本营的棋子不能再动。'],
  ]],
  ['pieces', '棋子', [
    '每方 25 枚，与四国军棋相同：司令、军长、师长 ×2、旅长 ×2、团长 ×2、营长 ×2、连长 ×3、排长 ×3、工兵 ×3、炸弹 ×2、地雷 ×3、军旗。',
  ]],
  ['deploy', '布阵', [
    ['每方在自己的半边暗中摆满行营以外的 25 个位置。', '军旗必须在大本营；地雷只能放在最后两排，而且不能放在大本营；炸弹不能放在第一排（前线）。',
      '先给一个随机的合法布阵，可以交换、重新随机、载入阵型，然后确认。'],
  ]],
  ['moving', '走法', [
    ['公路走一步；起点在铁路上的棋子可以沿一条笔直的铁路线走任意远，途中不能有棋子；工兵在相连的铁路上可以随意拐弯。', '不能越过任何棋子。'],
  ]],
  ['combat', '交战', [
    { ol: ['有一方是炸弹：两枚一起拿掉（炸弹碰到军旗也算扛到军旗）。', '防守的是军旗：被扛，对局结束。',
      '防守的是地雷：工兵挖掉地雷；别的棋子进攻地雷，默认两枚一起拿掉（房间可以改成"地雷不死"：只拿掉进攻的棋子）。', '其他情况官大的吃掉官小的，一样大同归于尽。'] },
    ['司令阵亡后，这一方的军旗位置亮给对方。', '你只看得到自己棋子的身份；交战只显示谁留下，不显示对方是什么。'],
  ]],
  ['endings', '胜负', [
    ['扛到对方军旗，或对方轮到时无棋可走，你就赢了。', '每步 30 秒，超时这一步跳过，也算一步；一方第三次超时判负（超时后对方无棋可走的话，反而是超时的一方赢）。',
      '对战中断线连续 60 秒判负。任何时候都可以投降。', '连续 100 步（双方合计，超时也算）没有交战判和；如果这第 100 步让对方无棋可走，算赢。',
      '提和：任何一方随时可以提出，对方同意就是和棋；对方这一回合结束时提议失效。提和以后要过 10 步才能再提。'],
    '页面上会显示步数、无交战的步数和双方的超时次数。',
  ]],
  ['clocks', '计时', [
    ['布阵：双方坐满后 90 秒；没确认的一方按当时的布阵开战。', '每步 30 秒；断线 60 秒。'],
  ]],
  ['options', '房间选项', [
    '和朋友的房间、人机练习可以放宽时间，也可以改扛旗和地雷规则；两人军棋没有明暗模式、步数上限和超时次数选项（第三次超时判负、100 步无交战判和是固定的）。',
    { table: [['每步时间', '30 秒', '10–120 秒'], ['布阵时间', '90 秒', '30–300 秒'], ['断线等待', '60 秒', '15–300 秒'],
      ['扛旗规则', '任意棋子可扛旗', '司令不能扛旗 / 只有工兵可扛旗（按能否进敌方大本营限制）'], ['地雷规则', '地雷同归于尽', '地雷不死']],
    head: ['选项', '默认', '可选'] },
  ]],
];

export const en = [
  ['board', 'The board', [
    '5 columns × 12 rows, 60 stations. South (red) holds the lower six rows, North the upper six. South moves first; then the sides take turns, one move each.',
    ['The 2nd and 4th stations of each back row are headquarters; each side has five camps.', 'Rows 2, 6, 7 and 11 and the two outer columns (except the back rows) are railway; every other link is road.',
      'Only three ways cross the front — left, middle and right, all railway; mountains block columns 2 and 4.', 'Camps and headquarters work as in the four-player game: a piece in a camp cannot be attacked, an occupied camp cannot be entered, a piece in a headquarters never moves again.'],
  ]],
  ['pieces', 'Pieces', [
    'Each side has the 25 pieces of the four-player game: commander, general, 2 division commanders, 2 brigadiers, 2 colonels, 2 majors, 3 captains, 3 lieutenants, 3 engineers, 2 bombs, 3 mines and the flag.',
  ]],
  ['deploy', 'Deployment', [
    ['Each side secretly fills the 25 non-camp stations of its half.', 'The flag goes in a headquarters; mines only in the last two rows and never in a headquarters; bombs not in the front row.',
      'You start from a random legal deployment: swap, re-randomize or load a formation, then confirm.'],
  ]],
  ['moving', 'Moving', [
    ['A road move is one step; a piece that starts on rail may slide along one straight railway line through empty stations; an engineer may turn freely on connected rail.', 'No piece passes another.'],
  ]],
  ['combat', 'Combat', [
    { ol: ['Either piece is a bomb: both are removed (a bomb that reaches the flag still captures it).', 'The defender is the flag: it is captured and the game ends.',
      'The defender is a mine: an engineer clears it; any other attacker and the mine are both removed by default (a room may choose invincible mines, where only the attacker goes).', 'Otherwise the higher rank wins; equal ranks are both removed.'] },
    ['When a commander falls, its side\'s flag is shown.', 'You see only your own ranks; a combat shows who survived, never the enemy\'s rank.'],
  ]],
  ['endings', 'Winning and drawing', [
    ['You win by capturing the enemy flag, or when the enemy has no legal move on its turn.', 'A move has 30 s; a timeout passes the turn and counts as a step. A side\'s third timeout loses — unless the opponent then has no legal move, which makes the side that timed out the winner.',
      'A player away for 60 s in a row during the battle loses. You may surrender at any time.', '100 steps in a row without combat (both sides, timeouts included) is a draw — unless that 100th step leaves the opponent without a legal move, which is a win.',
      'Draw offers: either side may offer at any time; the opponent accepts or declines, and an unanswered offer lapses when the opponent\'s turn ends. After an offer the same side waits 10 steps before offering again.'],
    'The page shows the steps, the steps since the last combat and both sides\' timeouts.',
  ]],
  ['clocks', 'Clocks', [
    ['Deployment: 90 s once both seats are filled; a side that has not confirmed plays the deployment it has.', '30 s a move; 60 s to come back after a disconnection.'],
  ]],
  ['options', 'Room options', [
    'Games with friends and practice games may set more generous clocks and change flag capture and mines; Hidden Front has no information modes, step limit or skip count (the third timeout and 100 quiet steps are fixed).',
    { table: [['Seconds per move', '30', '10–120'], ['Deployment seconds', '90', '30–300'], ['Reconnect grace', '60 s', '15–300 s'],
      ['Flag capture', 'any piece', 'not the commander / engineers only (by who may enter an enemy headquarters)'], ['Mines', 'mutual', 'invincible']],
    head: ['Option', 'Default', 'Choices'] },
  ]],
];
