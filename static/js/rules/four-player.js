// The rules page of 四国军棋 (rules.md), in our own words: Chinese and English. Data only
// (sections of paragraphs and lists), drawn by pages/rules.js.

export const zh = [
  ['board', '棋盘', [
    '十字形棋盘：东南西北四家各有一块 5 列 × 6 行的阵地（30 个位置），中间是 9 个位置的九宫，一共 129 个位置。',
    ['南北是一队，东西是一队，坐在对面的是队友。', '对战按 北 → 东 → 南 → 西 的顺序轮流，每次走一步；出局的一家以后就跳过。'],
    '位置有三种：',
    ['兵站：普通的位置。', '行营（每家 5 个，画成圆形）：在行营里的棋子不会被攻击；有棋子的行营谁都不能进，空的行营谁都可以进。', '大本营（每家最后一排的两个）：棋子一旦进了大本营就再也不能动。'],
    '连线分公路（细线）和铁路（粗线）。每家阵地的第 1 排、第 5 排，以及两侧的列（第 1 到第 5 排之间）是铁路；第一排的左、中、右三个位置有铁路直通九宫；相邻两家的第一排角上由弧形铁路（弯道）相连，弯道绕过九宫的角。',
  ]],
  ['pieces', '棋子', [
    '每家 25 枚棋子，从大到小：',
    { table: [['司令', 1, '最大'], ['军长', 1, ''], ['师长', 2, ''], ['旅长', 2, ''], ['团长', 2, ''], ['营长', 2, ''], ['连长', 3, ''], ['排长', 3, ''],
      ['工兵', 3, '最小，但在铁路上能拐弯，能挖地雷'], ['炸弹', 2, '和碰到的棋子一起拿掉'], ['地雷', 3, '不能移动'], ['军旗', 1, '不能移动；被扛就出局']],
    head: ['棋子', '数量', '说明'] },
  ]],
  ['deploy', '布阵', [
    ['每家在自己的阵地里暗中摆 25 枚棋子，占满行营以外的 25 个位置；行营开局是空的。', '军旗必须放在大本营；地雷只能放在最后两排；炸弹不能放在第一排（房间开了"炸弹可放第一排"时可以）。',
      '服务器先给你一个随机的合法布阵：点两枚自己的棋子交换位置（不合规则的交换会被拒绝并说明原因），也可以重新随机或载入保存的阵型，然后点"确认布阵"。', '布阵时间到了还没确认，就按当时的布阵开战。'],
  ]],
  ['moving', '走法', [
    ['地雷、军旗和进了大本营的棋子不能动。', '公路：沿任意一条连线走到相邻的位置。', '铁路：起点在铁路上的棋子可以沿一条笔直的铁路线走任意远，途中不能有任何棋子。', '工兵在铁路上可以随意拐弯（弯道也可以走），途中同样不能有棋子。',
      '起点不在铁路上的棋子只能走一步（可以走上铁路）。', '不能走到、也不能越过自己或队友的棋子；任何棋子都不能越过别的棋子。'],
  ]],
  ['combat', '交战', [
    '走到敌方棋子的位置就是进攻，按下面的顺序判定：',
    { ol: ['有一方是炸弹：两枚一起拿掉（炸弹碰到军旗也算扛到军旗）。', '防守的是军旗：军旗被扛，进攻的棋子留在那个大本营。',
      '防守的是地雷：工兵挖掉地雷并占住位置；别的棋子进攻地雷会被拿掉，地雷留着（"地雷同归于尽"规则下两枚都拿掉）。', '其他情况官大的吃掉官小的；一样大就同归于尽。'] },
    ['司令阵亡后，这一家的军旗所在位置会亮给所有人。', '默认的四暗模式下你只看得到自己棋子的身份；交战只显示结果（吃掉、进攻失败、同归于尽），不显示对方是什么。走棋的路线大家都看得到。', '对局结束后全部棋子亮出，回放里从头到尾都能看到每一枚棋子。'],
  ]],
  ['endings', '胜负', [
    '一家在下面的情况出局，出局后它的棋子全部离开棋盘：',
    ['军旗被扛；', '轮到它时无棋可走；', '投降（任何时候都可以）；', '超时次数达到上限（默认 5 次）。'],
    ['一队的两家都出局，另一队获胜。', '对战步数（走棋和超时都算一步）到了上限（默认 300）还没分出胜负，判和。',
      '提和：在场的任何一家都可以提和，其他在场的玩家全部同意才算和棋；有人拒绝，或轮到提和的一家再走时，提议作废。同一家提和以后要再走 10 步才能再提。'],
  ]],
  ['clocks', '计时', [
    ['布阵：座位坐满后 90 秒。', '每步：默认 30 秒；超时算一次超时，这一步跳过。', '断线：60 秒内回来就能接着下，期间时钟照走。排位赛里离开房间或断线超过这个时间算逃跑，之后轮到你时直接跳过。'],
  ]],
  ['options', '房间选项', [
    '休闲房间和人机练习可以改规则，排位赛一律用默认规则。',
    { table: [['明暗模式', '四暗', '四暗：只看得到自己；双明：队友互相看得到；全明：全部可见'], ['每步时间', '30 秒', '10–120 秒'], ['布阵时间', '90 秒', '30–300 秒'],
      ['断线等待', '60 秒', '15–300 秒'], ['步数上限', '300', '50–2000'], ['超时次数上限', '5', '1–20'], ['炸弹可放第一排（炸弹满天飞）', '否', ''],
      ['扛旗规则', '任意棋子可扛旗', '司令不能扛旗：司令不能进敌方大本营；只有工兵可扛旗：只有工兵能进敌方大本营'], ['地雷规则', '地雷不死', '地雷同归于尽：非工兵进攻地雷，两枚都拿掉']],
    head: ['选项', '默认', '可选'] },
  ]],
];

export const en = [
  ['board', 'The board', [
    'A cross: each of the four seats (North, East, South, West) owns a region of 5 columns × 6 rows (30 stations); the 9 stations of the centre sit between them. 129 stations in all.',
    ['North and South are one team, East and West the other: your partner sits opposite you.', 'Turns go North → East → South → West, one move each; a seat that is out is skipped.'],
    'There are three kinds of station:',
    ['Posts: ordinary stations.', 'Camps (five per seat, drawn round): a piece in a camp cannot be attacked; nobody may enter an occupied camp, anybody may enter an empty one.', 'Headquarters (two in each back row): a piece that enters one never moves again.'],
    'Links are roads (thin lines) or railways (thick lines). Each region\'s rows 1 and 5 and its side columns (between rows 1 and 5) are railway; the left, middle and right stations of the front row run by rail into the centre; the front-row corners of neighbouring seats are joined by curved rails (arcs) that go round the centre\'s corner.',
  ]],
  ['pieces', 'Pieces', [
    'Each seat has 25 pieces, from the highest:',
    { table: [['Commander', 1, 'highest'], ['General', 1, ''], ['Division commander', 2, ''], ['Brigadier', 2, ''], ['Colonel', 2, ''], ['Major', 2, ''], ['Captain', 3, ''], ['Lieutenant', 3, ''],
      ['Engineer', 3, 'lowest, but turns corners on rail and clears mines'], ['Bomb', 2, 'removed together with whatever it meets'], ['Mine', 3, 'never moves'], ['Flag', 1, 'never moves; losing it puts the seat out']],
    head: ['Piece', 'Count', 'Notes'] },
  ]],
  ['deploy', 'Deployment', [
    ['Each seat secretly fills the 25 non-camp stations of its region; camps start empty.', 'The flag goes in a headquarters; mines only in the last two rows; bombs not in the front row (unless the room allows front-row bombs).',
      'You start from a random legal deployment: click two of your pieces to swap them (a swap that breaks a rule is refused with the reason), re-randomize or load a saved formation, then confirm.', 'When the deployment time runs out, the deployment you have is played.'],
  ]],
  ['moving', 'Moving', [
    ['Mines, flags and pieces in a headquarters do not move.', 'Road: one step along any link to a neighbouring station.', 'Rail: a piece that starts on rail may slide any distance along one straight railway line, through empty stations only.', 'An engineer on rail may turn as often as it likes (arcs included), through empty stations only.',
      'A piece that starts off rail moves one step (it may step onto rail).', 'No piece moves onto or past a piece of its own team, and no piece passes any piece.'],
  ]],
  ['combat', 'Combat', [
    'Moving onto an enemy piece attacks it. In this order:',
    { ol: ['Either piece is a bomb: both are removed (a bomb that reaches the flag still captures it).', 'The defender is the flag: it is captured, and the attacker stays in that headquarters.',
      'The defender is a mine: an engineer clears it and takes the station; any other attacker is removed and the mine stays (with "mutual" mines both go).', 'Otherwise the higher rank wins; equal ranks are both removed.'] },
    ['When a seat\'s commander falls, its flag is shown to everyone.', 'In the default four-dark mode you see only your own ranks; a combat shows only its outcome (took, attacked and lost, both removed), never the enemy\'s rank. Paths of moves are public.', 'When the game ends every piece is revealed, and the replay shows all of them from the start.'],
  ]],
  ['endings', 'Winning and drawing', [
    'A seat is out — and all its pieces leave the board — when:',
    ['its flag is captured;', 'it has no legal move when its turn comes;', 'it surrenders (at any time);', 'it reaches the skip limit (5 by default).'],
    ['A team wins when both seats of the other team are out.', 'When the battle\'s step counter (moves and skips) reaches its limit (300 by default) with no winner, the game is drawn.',
      'Draw offers: any live player may offer a draw; it is a draw when every other live player accepts. The offer ends when someone declines or when the offering seat moves again; the same seat may offer again only 10 of its turns later.'],
  ]],
  ['clocks', 'Clocks', [
    ['Deployment: 90 s once all seats are filled.', 'Each move: 30 s by default; a timeout is a skip.', 'Disconnection: come back within 60 s and play on; your clock keeps running. In a ranked game, leaving or staying away longer is an escape, and your turns are skipped from then on.'],
  ]],
  ['options', 'Room options', [
    'Casual rooms and practice games may change the rules; ranked games always use the defaults.',
    { table: [['Information', 'Four dark', 'four dark: only your own; double open: partners see each other; all open: everything'], ['Seconds per move', '30', '10–120'], ['Deployment seconds', '90', '30–300'],
      ['Reconnect grace', '60 s', '15–300 s'], ['Step limit', '300', '50–2000'], ['Skips allowed', '5', '1–20'], ['Bombs in the front row', 'no', ''],
      ['Flag capture', 'any piece', 'not the commander: the commander may not enter an enemy headquarters; engineers only: only engineers may'], ['Mines', 'invincible', 'mutual: a non-engineer and the mine it attacks are both removed']],
    head: ['Option', 'Default', 'Choices'] },
  ]],
];
