// Every user-visible string, in 简体中文 (default) and English.

const zh = {
  hf_ranked: '两人军棋排位', hf_ranked_desc: '快速匹配，两人军棋，等级分 Glicko-2', hf_ranked_mode: '两人排位',
  rating: '等级分', rating_history: '等级分走势', title: '军衔', provisional: '定级中（？）', no_rated_games: '还没有排位对局',
  title_engineer: '工兵', title_platoon_leader: '排长', title_company_commander: '连长', title_battalion_commander: '营长',
  title_regiment_commander: '团长', title_brigade_commander: '旅长', title_division_commander: '师长', title_army_commander: '军长', title_commander: '司令',
  rating_change: '等级分',
  site: '四国军棋', tagline: '四国军棋 · 两人军棋，在线对战',
  nav_lobby: '大厅', nav_leaderboard: '排行榜', nav_profile: '我的战绩', nav_login: '登录', nav_register: '注册',
  nav_logout: '退出', menu: '菜单', lobby_tab_play: '开始', out_watch_on: '你已出局，队友继续作战：可以观看到终局，或离开', lobby_tab_rooms: '房间', lobby_tab_games: '观战', lang_switch: 'English', guest: '游客', play_as_guest: '游客试玩',
  username: '用户名', password: '密码', password_again: '确认密码', login: '登录', register: '注册',
  no_account: '还没有账号？', have_account: '已有账号？', passwords_differ: '两次输入的密码不一致',
  username_hint: '3–20 个字符：中英文、数字、下划线', password_hint: '8–128 个字符，不要使用常见密码',
  welcome: '欢迎，{name}',
  lobby_title: '游戏大厅', open_rooms: '公开房间', no_rooms: '暂无公开房间，创建一个吧！', refresh: '刷新',
  create_room: '创建房间', practice: '人机练习', practice_desc: '你与三个电脑对战，立即开始',
  ranked: '排位赛', ranked_dual: '双控排位', ranked_desc: '四人匹配，随机分队', ranked_dual_desc: '两人匹配，各控一队两家',
  join_queue: '开始匹配', leave_queue: '取消匹配', queue_bar: '{ladder} 匹配中 {s}', waiting: '匹配中… {s}', queue_guest: '游客不能参加排位赛，请先注册',
  match_ready: '{ladder}：对局已找到', accept_within: '请在 {s} 秒内确认', accept_match: '接受', decline_match: '拒绝',
  match_accepted_wait: '已接受，等待其他玩家确认…', match_declined_requeued: '有玩家拒绝了对局，你已回到队列前列',
  match_timed_out_requeued: '有玩家未及时确认，你已回到队列前列', match_missed: '你没有接受对局，已退出匹配队列',
  queue_dropped: '连接已断开，已退出匹配队列',
  join_by_code: '输入邀请码加入', join: '加入', invite_code: '邀请码',
  room: '房间', room_host: '房主', seats: '座位', spectators: '观众', options: '规则选项',
  public_room: '公开房间', private_room: '私人房间（邀请链接）', visibility: '可见性',
  opt_info_mode: '明暗模式', opt_move_seconds: '每步时间（秒）', opt_deploy_seconds: '布阵时间（秒）',
  opt_reconnect_seconds: '断线等待（秒）', opt_max_steps: '步数上限', opt_max_skips: '超时次数上限',
  opt_bombs_front_row: '炸弹可放第一排（炸弹满天飞）', opt_flag_capture: '扛旗规则', opt_mines: '地雷规则',
  four_dark: '四暗', double_open: '双明', all_open: '全明',
  flag_any: '任意棋子可扛旗', flag_not_commander: '司令不能扛旗', flag_engineer_only: '只有工兵可扛旗',
  mines_invincible: '地雷不死', mines_mutual: '地雷同归于尽',
  yes: '是', no: '否', create: '创建', cancel: '取消', close: '关闭', ok: '确定',
  take_seat: '坐下', leave_seat: '离座', add_bot: '加电脑', remove_bot: '移除电脑', kick: '踢出', ready: '准备',
  not_ready: '取消准备', is_ready: '已准备', empty_seat: '空位', bot: '电脑', start_when_ready: '四个座位坐满并准备后开始',
  invite_link: '邀请链接', copy: '复制', copied: '已复制', leave_room: '离开房间', spectate: '观战',
  chat: '聊天', team_chat: '队友', room_chat: '全体', say: '发送', chat_placeholder: '说点什么…',
  seat_N: '北', seat_E: '东', seat_S: '南', seat_W: '西', team_NS: '南北队', team_EW: '东西队',
  phase_waiting: '等待开始', phase_deploy: '布阵', phase_battle: '对战中', phase_over: '已结束',
  deploy_hint: '点击两枚自己的棋子交换位置，然后确认布阵。', rerandom: '重新随机', confirm_deploy: '确认布阵',
  deployed: '已确认', save_formation: '保存阵型', load_formation: '载入阵型', formation_name: '阵型名称',
  no_formations: '还没有保存的阵型', formations: '我的阵型', saved: '已保存',
  deploy_left: '布阵剩余 {s} 秒', waiting_others: '等待其他玩家布阵…',
  your_turn: '轮到你走棋', turn_of: '轮到{seat}', step: '步数 {n}/{max}', skips: '超时 {n}/{max}',
  online: '在线', offline: '离线', eliminated: '已出局', surrender: '投降', offer_draw: '提和',
  accept_draw: '同意和棋', decline_draw: '拒绝和棋', draw_offered: '{seat}提出和棋',
  confirm_surrender: '确定要投降吗？', reconnecting: '连接已断开，正在重新连接…', reconnected: '已重新连接',
  attacker_won: '进攻方胜', defender_won: '防守方胜', both_removed: '同归于尽',
  flag_revealed: '{seat}的军旗已亮出', seat_eliminated: '{seat}出局', skipped: '{seat}超时（{n} 次）',
  elim_flag_captured: '军旗被扛', elim_no_legal_move: '无棋可走', elim_surrendered: '投降', elim_too_many_skips: '超时过多', elim_escaped: '逃跑',
  game_over: '对局结束', you_won: '你方获胜！', you_lost: '你方落败', draw: '和棋', winner: '{team}获胜',
  reason_elimination: '对方两家全部出局', reason_step_limit: '达到步数上限', reason_agreement: '协议和棋',
  full_reveal: '全部棋子已亮出', points_change: '积分变化', watch_replay: '观看回放', back_to_lobby: '返回大厅',
  rematch: '再来一局', rematch_asked: '已请求再来一局', rematch_start: '开始（与留下的人）', rematch_seats: '想再来一局：{seats}',
  auto_play_on: '托管', auto_play_off: '取消托管', auto_mark: '托管', auto_asked: '由电脑代打', auto_away: '断线，由电脑代打',
  ranked_no_auto: '排位赛不能托管：超时跳过，断线超时判逃跑',
  live_games: '正在进行的对局', no_live_games: '暂无可观看的对局', watching_as_visitor: '你正以访客身份观战 · 登录后可下棋和聊天', watch: '观战', steps_n: '第{n}步', kind_casual: '休闲', kind_ranked: '排位', kind_ranked_dual: '双控排位',
  replay: '对局回放', first: '开始', prev: '上一步', next: '下一步', last: '结束', play: '播放', pause: '暂停',
  move_n: '第 {n} / {total} 步', initial_position: '初始布阵',
  leaderboard: '排行榜', rank_col: '名次', player: '玩家', points: '积分', games: '局数',
  wins: '胜', draws: '和', losses: '负', surrenders: '投降', escapes: '逃跑', jump_to_me: '跳到我的位置',
  prev_page: '上一页', next_page: '下一页', page: '第 {n} 页', empty_board: '暂无排名',
  profile: '个人资料', recent_games: '最近对局', result: '结果', date: '日期', ladder: '天梯', mode: '模式',
  win: '胜', loss: '负', not_found: '找不到该页面', loading: '加载中…', error: '出错了', retry: '重试',
  casual: '休闲', practice_mode: '练习', ranked_mode: '排位', ranked_dual_mode: '双控排位',
  rank_9: '司令', rank_8: '军长', rank_7: '师长', rank_6: '旅长', rank_5: '团长', rank_4: '营长',
  rank_3: '连长', rank_2: '排长', rank_1: '工兵', rank_B: '炸弹', rank_M: '地雷', rank_F: '军旗', rank_unknown: '暗棋',
  camp: '营', hq: '大本营',
  camp_full: '行营', hq_full: '大本营', legend: '图例', road: '公路', rail: '铁路',
  you: '你', host_only: '只有房主可以操作', spectating: '观战中', dual: '双控', clock: '时钟',
  my_games: '我的对局', view: '查看', in_progress: '进行中', none: '无',
  keyboard_help: '方向键移动光标，回车选择，Esc 取消',
  battle_begins: '对战开始', moved_waiting: '已走棋，等待其他玩家…',
  reason_elimination_us: '我方两家全部出局', reason_elimination_them: '对方两家全部出局', reason_elimination_team: '{team}两家全部出局',
  piece_mine: '你的{rank}', piece_seen: '{seat}的{rank}', piece_hidden: '{seat}的棋子', piece_mine_hidden: '你的棋子',
  c_attacker_won: '{a}吃掉了{d}', c_defender_won: '{a}进攻{d}失败', c_both_removed: '{a}与{d}同归于尽',
  move_to: '{a}走到{where}', where_centre: '中央九宫', where_region: '{seat}方阵地', where_camp: '{seat}方行营', where_hq: '{seat}方大本营', by_rail: '（铁路）',
  mark: '标记', mark_title: '标记这枚棋子', mark_clear: '清除', mark_hint: '点击或右击敌方棋子可做标记',
  casualties: '阵亡', left_n: '剩 {n}', lost_n: '阵亡 {n}', lost_none: '无',
  sound: '声音', sound_on: '🔊 声音开', sound_off: '🔇 声音关', zoom: '放大棋盘', unzoom: '缩小棋盘',
  send_to: '发送给', invite_code_is: '邀请码（大厅输入即可加入）',
  replay_keys: '键盘：← → 逐步，Home / End 到开始 / 结束',
  lang_switch_label: 'Switch to English', opponents: '对手', opt_bombs_badge: '炸弹可前排',
  room_phase: '状态', your_move_title: '轮到你走棋',
  kicked: '你已被房主请出房间', room_closed: '房间已关闭', resume: '继续', in_queue: '（队列中 {n} 人）', bot_level: '电脑难度', bot_standard: '标准', bot_greedy: '贪心', bot_random: '随机', log: '记录',
  game: '游戏', game_four_player: '四国军棋', game_hidden_front: '两人军棋', choose_game: '选择游戏',
  game_four_player_desc: '四人两队，北南对东西，15 × 15 十字棋盘', game_hidden_front_desc: '经典两人暗棋：南对北，5 × 12 棋盘，三条前线通道',
  practice_desc_hf: '你与一个电脑对战，立即开始', start_when_ready_hf: '两个座位坐满并准备后开始',
  hf_steps: '第 {n} 步 · 无交战 {q}/{max}', hf_timeouts: '超时：南 {s}/{max} · 北 {n}/{max}',
  draw_offer_lapsed: '{seat}的和棋提议已失效', draw_again_in: '{n} 步后可再次提和',
  your_side: '执方', you_won_hf: '你赢了！', you_lost_hf: '你输了', mountain: '山界',
  reason_flag_captured_them: '夺得对方军旗', reason_flag_captured_us: '我方军旗被夺', reason_flag_captured_seat: '{seat}的军旗被夺',
  reason_no_legal_move_them: '对方无棋可走', reason_no_legal_move_us: '我方无棋可走', reason_no_legal_move_seat: '{seat}无棋可走',
  reason_timeouts_them: '对方第三次超时', reason_timeouts_us: '我方第三次超时', reason_timeouts_seat: '{seat}第三次超时',
  reason_surrender_them: '对方投降', reason_surrender_us: '我方投降', reason_surrender_seat: '{seat}投降',
  reason_away_them: '对方断线超时', reason_away_us: '我方断线超时', reason_away_seat: '{seat}断线超时',
  reason_no_combat: '连续 100 步没有交战',
  you_subject: '你', draw_declined_by: '{seat}拒绝和棋', draw_accepted_by: '{seat}同意和棋', deploy_confirmed_by: '{seat}已确认布阵', escaped_by: '{seat}逃跑',
  draw_prompt_accept: '同意', draw_prompt_decline: '拒绝', draw_prompt_title: '和棋提议',
  quick_chat: '快捷语', rules: '规则', rules_title: '{game}规则', rules_link: '规则说明',
  ranked_register: '注册后即可参加排位赛', ranked_register_btn: '注册账号', ranked_login: '已有账号？登录',
};

const en = {
  hf_ranked: 'Hidden Front rated', hf_ranked_desc: 'Quick pairing, Hidden Front, Glicko-2 rating', hf_ranked_mode: 'Hidden Front rated',
  rating: 'Rating', rating_history: 'Rating history', title: 'Title', provisional: 'provisional (?)', no_rated_games: 'No rated games yet',
  title_engineer: 'Engineer', title_platoon_leader: 'Platoon leader', title_company_commander: 'Company commander', title_battalion_commander: 'Battalion commander',
  title_regiment_commander: 'Regiment commander', title_brigade_commander: 'Brigade commander', title_division_commander: 'Division commander', title_army_commander: 'Army commander', title_commander: 'Commander',
  rating_change: 'Rating',
  site: 'Siguo', tagline: 'Military chess online: four-player and Hidden Front',
  nav_lobby: 'Lobby', nav_leaderboard: 'Leaderboard', nav_profile: 'My games', nav_login: 'Log in', nav_register: 'Register',
  nav_logout: 'Log out', menu: 'Menu', lobby_tab_play: 'Play', out_watch_on: 'You are out; your partner fights on: watch to the end, or leave', lobby_tab_rooms: 'Rooms', lobby_tab_games: 'Watch', lang_switch: '中文', guest: 'Guest', play_as_guest: 'Play as guest',
  username: 'Username', password: 'Password', password_again: 'Repeat password', login: 'Log in', register: 'Register',
  no_account: 'No account yet?', have_account: 'Already registered?', passwords_differ: 'The passwords differ',
  username_hint: '3–20 characters: letters (CJK too), digits, underscore', password_hint: '8–128 characters, not a common password',
  welcome: 'Welcome, {name}',
  lobby_title: 'Lobby', open_rooms: 'Public rooms', no_rooms: 'No public rooms yet — create one!', refresh: 'Refresh',
  create_room: 'Create room', practice: 'Practice vs bots', practice_desc: 'You against three bots, starts at once',
  ranked: 'Ranked', ranked_dual: 'Ranked dual', ranked_desc: 'Four players, random teams', ranked_dual_desc: 'Two players, each commands a whole team',
  join_queue: 'Find a game', leave_queue: 'Cancel', queue_bar: '{ladder}: searching {s}', waiting: 'Searching… {s}', queue_guest: 'Guests cannot play ranked; please register',
  match_ready: '{ladder}: match found', accept_within: 'Accept within {s} s', accept_match: 'Accept', decline_match: 'Decline',
  match_accepted_wait: 'Accepted; waiting for the others…', match_declined_requeued: 'A player declined; you are back at the front of the queue',
  match_timed_out_requeued: 'A player did not accept in time; you are back at the front of the queue', match_missed: 'You did not accept the match and left the queue',
  queue_dropped: 'Disconnected: you left the queue',
  join_by_code: 'Join with an invite code', join: 'Join', invite_code: 'Invite code',
  room: 'Room', room_host: 'Host', seats: 'Seats', spectators: 'Spectators', options: 'Options',
  public_room: 'Public room', private_room: 'Private (invite link)', visibility: 'Visibility',
  opt_info_mode: 'Information', opt_move_seconds: 'Seconds per move', opt_deploy_seconds: 'Deployment seconds',
  opt_reconnect_seconds: 'Reconnect grace (s)', opt_max_steps: 'Step limit', opt_max_skips: 'Skips allowed',
  opt_bombs_front_row: 'Bombs allowed in the front row', opt_flag_capture: 'Flag capture', opt_mines: 'Mines',
  four_dark: 'Four dark', double_open: 'Double open', all_open: 'All open',
  flag_any: 'Any piece', flag_not_commander: 'Not the commander', flag_engineer_only: 'Engineers only',
  mines_invincible: 'Invincible', mines_mutual: 'Mutual removal',
  yes: 'Yes', no: 'No', create: 'Create', cancel: 'Cancel', close: 'Close', ok: 'OK',
  take_seat: 'Sit', leave_seat: 'Stand up', add_bot: 'Add bot', remove_bot: 'Remove bot', kick: 'Kick', ready: 'Ready',
  not_ready: 'Not ready', is_ready: 'Ready', empty_seat: 'Empty', bot: 'Bot', start_when_ready: 'Starts when all four seats are taken and ready',
  invite_link: 'Invite link', copy: 'Copy', copied: 'Copied', leave_room: 'Leave room', spectate: 'Watch',
  chat: 'Chat', team_chat: 'Team', room_chat: 'All', say: 'Send', chat_placeholder: 'Say something…',
  seat_N: 'North', seat_E: 'East', seat_S: 'South', seat_W: 'West', team_NS: 'North–South', team_EW: 'East–West',
  phase_waiting: 'Waiting', phase_deploy: 'Deployment', phase_battle: 'Battle', phase_over: 'Finished',
  deploy_hint: 'Click two of your pieces to swap them, then confirm.', rerandom: 'Re-randomize', confirm_deploy: 'Confirm',
  deployed: 'Confirmed', save_formation: 'Save formation', load_formation: 'Load formation', formation_name: 'Formation name',
  no_formations: 'No saved formations yet', formations: 'My formations', saved: 'Saved',
  deploy_left: '{s} s left to deploy', waiting_others: 'Waiting for the others to deploy…',
  your_turn: 'Your move', turn_of: '{seat} to move', step: 'Step {n}/{max}', skips: 'Skips {n}/{max}',
  online: 'online', offline: 'offline', eliminated: 'eliminated', surrender: 'Surrender', offer_draw: 'Offer draw',
  accept_draw: 'Accept draw', decline_draw: 'Decline', draw_offered: '{seat} offers a draw',
  confirm_surrender: 'Really surrender?', reconnecting: 'Connection lost — reconnecting…', reconnected: 'Reconnected',
  attacker_won: 'Attacker won', defender_won: 'Defender won', both_removed: 'Both removed',
  flag_revealed: "{seat}'s flag is revealed", seat_eliminated: '{seat} is eliminated', skipped: '{seat} timed out ({n})',
  elim_flag_captured: 'flag captured', elim_no_legal_move: 'no legal move', elim_surrendered: 'surrendered', elim_too_many_skips: 'too many skips', elim_escaped: 'escaped',
  game_over: 'Game over', you_won: 'Your team won!', you_lost: 'Your team lost', draw: 'Draw', winner: '{team} won',
  reason_elimination: 'both enemy seats eliminated', reason_step_limit: 'step limit reached', reason_agreement: 'agreed draw',
  full_reveal: 'All pieces revealed', points_change: 'Points', watch_replay: 'Watch replay', back_to_lobby: 'Back to lobby',
  rematch: 'Play again', rematch_asked: 'Asked to play again', rematch_start: 'Start with those who stayed', rematch_seats: 'Want to play again: {seats}',
  auto_play_on: 'Let the computer play', auto_play_off: 'Take back', auto_mark: 'Auto', auto_asked: 'The computer plays this seat', auto_away: 'Away: the computer plays this seat',
  ranked_no_auto: 'Ranked: no auto-play; timeouts skip, away past the grace escapes',
  live_games: 'Games in progress', no_live_games: 'No games to watch', watching_as_visitor: 'You are watching as a visitor · log in to play and chat', watch: 'Watch', steps_n: 'step {n}', kind_casual: 'Casual', kind_ranked: 'Ranked', kind_ranked_dual: 'Ranked (dual)',
  replay: 'Replay', first: 'Start', prev: 'Back', next: 'Forward', last: 'End', play: 'Play', pause: 'Pause',
  move_n: 'Move {n} / {total}', initial_position: 'Deployment',
  leaderboard: 'Leaderboard', rank_col: '#', player: 'Player', points: 'Points', games: 'Games',
  wins: 'W', draws: 'D', losses: 'L', surrenders: 'Surr.', escapes: 'Esc.', jump_to_me: 'Jump to me',
  prev_page: 'Previous', next_page: 'Next', page: 'Page {n}', empty_board: 'Nobody ranked yet',
  profile: 'Profile', recent_games: 'Recent games', result: 'Result', date: 'Date', ladder: 'Ladder', mode: 'Mode',
  win: 'Win', loss: 'Loss', not_found: 'Page not found', loading: 'Loading…', error: 'Error', retry: 'Retry',
  casual: 'Casual', practice_mode: 'Practice', ranked_mode: 'Ranked', ranked_dual_mode: 'Ranked dual',
  rank_9: 'Cmdr', rank_8: 'Gen', rank_7: 'Div', rank_6: 'Brig', rank_5: 'Col', rank_4: 'Maj',
  rank_3: 'Capt', rank_2: 'Lt', rank_1: 'Eng', rank_B: 'Bomb', rank_M: 'Mine', rank_F: 'Flag', rank_unknown: 'hidden',
  camp: 'camp', hq: 'HQ',
  camp_full: 'Camp', hq_full: 'Headquarters', legend: 'Legend', road: 'Road', rail: 'Rail',
  you: 'you', host_only: 'Only the host can do that', spectating: 'Spectating', dual: 'dual', clock: 'Clock',
  my_games: 'My games', view: 'View', in_progress: 'In progress', none: 'none',
  keyboard_help: 'Arrow keys move the cursor, Enter selects, Esc cancels',
  battle_begins: 'The battle begins', moved_waiting: 'Moved — waiting for the others…',
  reason_elimination_us: 'both our seats eliminated', reason_elimination_them: 'both enemy seats eliminated', reason_elimination_team: 'both {team} seats eliminated',
  piece_mine: 'your {rank}', piece_seen: "{seat}'s {rank}", piece_hidden: 'a {seat} piece', piece_mine_hidden: 'your piece',
  c_attacker_won: '{a} took {d}', c_defender_won: '{a} attacked {d} and lost', c_both_removed: '{a} and {d} removed each other',
  move_to: '{a} moved to {where}', where_centre: 'the centre', where_region: "{seat}'s ground", where_camp: "a {seat} camp", where_hq: "{seat}'s headquarters", by_rail: ' (rail)',
  mark: 'Mark', mark_title: 'Mark this piece', mark_clear: 'Clear', mark_hint: 'Click or right-click an enemy piece to mark it',
  casualties: 'Casualties', left_n: '{n} left', lost_n: '{n} lost', lost_none: 'none',
  sound: 'Sound', sound_on: '🔊 Sound on', sound_off: '🔇 Sound off', zoom: 'Zoom in', unzoom: 'Zoom out',
  send_to: 'Send to', invite_code_is: 'Invite code (enter it in the lobby to join)',
  replay_keys: 'Keys: ← → step, Home / End jump to start / end',
  lang_switch_label: '切换到中文', opponents: 'Opponents', opt_bombs_badge: 'Front-row bombs',
  room_phase: 'Status', your_move_title: 'Your move',
  kicked: 'The host removed you from the room', room_closed: 'The room was closed', resume: 'Resume', in_queue: '({n} in the queue)', bot_level: 'Bot level', bot_standard: 'Standard', bot_greedy: 'Greedy', bot_random: 'Random', log: 'Log',
  game: 'Game', game_four_player: 'Four-player', game_hidden_front: 'Hidden Front', choose_game: 'Choose a game',
  game_four_player_desc: 'Four players in two teams, North–South against East–West, on the cross', game_hidden_front_desc: 'The classic two-player game: South against North on 5 × 12, three ways across the front',
  practice_desc_hf: 'You against one bot, starts at once', start_when_ready_hf: 'Starts when both seats are taken and ready',
  hf_steps: 'Step {n} · without combat {q}/{max}', hf_timeouts: 'Timeouts: South {s}/{max} · North {n}/{max}',
  draw_offer_lapsed: "{seat}'s draw offer lapsed", draw_again_in: 'Offer again in {n} steps',
  your_side: 'Your side', you_won_hf: 'You won!', you_lost_hf: 'You lost', mountain: 'Mountains',
  reason_flag_captured_them: 'we captured the enemy flag', reason_flag_captured_us: 'our flag was captured', reason_flag_captured_seat: "{seat}'s flag was captured",
  reason_no_legal_move_them: 'the enemy had no legal move', reason_no_legal_move_us: 'we had no legal move', reason_no_legal_move_seat: '{seat} had no legal move',
  reason_timeouts_them: 'the enemy timed out a third time', reason_timeouts_us: 'we timed out a third time', reason_timeouts_seat: '{seat} timed out a third time',
  reason_surrender_them: 'the enemy surrendered', reason_surrender_us: 'we surrendered', reason_surrender_seat: '{seat} surrendered',
  reason_away_them: 'the enemy stayed away too long', reason_away_us: 'we stayed away too long', reason_away_seat: '{seat} stayed away too long',
  reason_no_combat: '100 steps without combat',
  you_subject: 'You', draw_declined_by: '{seat} declines the draw', draw_accepted_by: '{seat} accepts the draw', deploy_confirmed_by: '{seat} confirmed the deployment', escaped_by: '{seat} escaped',
  draw_offered_you: '{seat} offer a draw', flag_revealed_you: '{your} flag is revealed', seat_eliminated_you: '{seat} are eliminated',
  draw_offer_lapsed_you: '{your} draw offer lapsed', draw_declined_by_you: '{seat} decline the draw', draw_accepted_by_you: '{seat} accept the draw',
  draw_prompt_accept: 'Accept', draw_prompt_decline: 'Decline', draw_prompt_title: 'Draw offer',
  quick_chat: 'Quick chat', rules: 'Rules', rules_title: 'Rules of {game}', rules_link: 'Rules',
  ranked_register: 'Register to play ranked games', ranked_register_btn: 'Register', ranked_login: 'Have an account? Log in',
};

// Error codes from the server, in Chinese (English falls back to the server's message).
const zhErrors = {
  invalid_credentials: '用户名或密码错误', username_taken: '用户名已被占用', invalid_username: '用户名不合法',
  weak_password: '密码太弱', common_password: '密码太常见', password_too_common: '密码太常见，请换一个',
  password_is_username: '密码不能与用户名相同', rate_limited: '操作过于频繁，请稍后再试', server_busy: '服务器繁忙，请稍后再试', invalid_body: '请求格式错误',
  token_expired: '登录已过期，请重新登录', chat_too_long: '消息太长', chat_empty: '消息不能为空', chat_rate_limited: '发言太快了',
  wrong_phase: '当前阶段不能这样做', not_host: '只有房主可以操作', already_confirmed: '已经确认过布阵', too_many_rooms: '你开的房间太多了',
  no_piece_there: '那里没有你的棋子', outside_region: '只能在自己的区域内布阵', not_your_seat: '这不是你的座位',
  draw_offer_too_soon: '暂时不能再次提和', in_ranked_game: '你还有一局排位赛没有结束', already_queued: '你已在另一个匹配队列中', match_pending: '正在为你创建对局', draw_offer_pending: '已有和棋提议', invalid_options: '规则选项不合法', password_too_short: '密码太短', password_too_long: '密码太长',
  too_many_requests: '请求过于频繁，请稍后再试', unauthorized: '请先登录', guest_not_allowed: '游客不能进行此操作', login_required: '访客只能观战：登录或以游客身份开始即可下棋和聊天',
  not_found: '找不到', flag_not_in_headquarters: '军旗必须放在大本营', mine_outside_back_rows: '地雷只能放在最后两排', mine_in_headquarters: '地雷不能放在大本营',
  bomb_in_front_row: '炸弹不能放在第一排', piece_in_camp: '行营开局不能放子', not_your_turn: '还没轮到你',
  illegal_move: '不合法的走法', bad_seat: '这个游戏没有这个座位', invalid_seat: '这个游戏没有这个座位', bad_variant: '没有这个游戏', already_in_queue: '已在匹配队列中', seat_taken: '座位已被占用', room_full: '房间已满', casual_only: '只有休闲房间和练习可以这样做（排位赛保持原规则）',
  queue_cooldown: '你错过了太多对局，请稍后再匹配', not_connected: '尚未连接到服务器，请稍后再试',
};

const dicts = { zh, en };
let lang = localStorage.getItem('siguo_lang') || 'zh';
if (!dicts[lang]) lang = 'zh';

export function getLang() { return lang; }
export function setLang(l) { lang = dicts[l] ? l : 'zh'; localStorage.setItem('siguo_lang', lang); document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en'; }
export function t(key, vars) {
  let s = dicts[lang][key] ?? zh[key] ?? key;
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.replaceAll('{' + k + '}', v);
  return s;
}
export function errorText(err) {
  if (!err) return t('error');
  const code = err.code;
  if (lang === 'zh' && code && zhErrors[code]) return zhErrors[code] + (err.message && !zhErrors[code] ? '' : '');
  return err.message || code || t('error');
}
/** Error text with the server's reason kept visible (used where the reason matters, e.g. swaps). */
export function errorWithReason(err) {
  if (!err) return t('error');
  const code = err.code;
  // One language: the Chinese reason alone (the server's message is English).
  if (lang === 'zh' && zhErrors[code]) return zhErrors[code];
  return err.message || code;
}
export function seatName(seat) { return t('seat_' + seat); }
/**
 * A line about `seat` for its reader: our own seat (`who.you`, from the room state's `whoIs`) as
 * 你 / "You" everywhere — with the seat's name under dual control — and any other by its name.
 * English keeps its own words for "you" where the grammar needs them (`key + '_you'`).
 */
export function seatLine(key, seat, who, vars = {}) {
  if (!who || !who.you) return t(key, { ...vars, seat: seatName(seat), your: seatName(seat) });
  const dual = (w) => (who.dual ? (lang === 'zh' ? `${w}（${seatName(seat)}）` : `${w} (${seatName(seat)})`) : w);
  const k = dicts[lang][key + '_you'] ? key + '_you' : key;
  return t(k, { ...vars, seat: dual(t('you_subject')), your: dual(lang === 'zh' ? '你' : 'Your') });
}
/** The winner of a status: a team ("NS"/"EW", the four-player game) or a seat ("S"/"N", Hidden Front). */
export function winnerName(w) { return w && w.length === 1 ? seatName(w) : t('team_' + w); }
/** The name of a game: "four_player" → 四国军棋, "hidden_front" → 两人军棋. */
export function gameName(variant) { return t('game_' + (variant || 'four_player')); }
export function rankName(code) { return code === '?' ? t('rank_unknown') : t('rank_' + code); }
export function botName(level) {
  return lang === 'zh' ? `${t('bot')}（${t('bot_' + level)}）` : `${t('bot')} (${t('bot_' + level)})`;
}
setLang(lang);
