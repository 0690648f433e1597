// Quick chat (快捷语): short phrases sent with one tap as ordinary `chat` messages (docs/protocol.md
// §9), so the chat's limits and recipients apply to them unchanged. Pure: no DOM, no i18n state.

const PHRASES = {
  zh: ['你好', '好棋', '再来一局', '快点吧', '谢谢', '不好意思', '失误了', '加油', '再见'],
  en: ['Hello', 'Good move', 'Another game?', 'Hurry up, please', 'Thanks', 'Sorry', 'My mistake', 'Good luck', 'Bye'],
};

/** The phrases of a language ("zh" | "en"; anything else: Chinese). */
export function quickPhrases(lang) {
  return PHRASES[lang] || PHRASES.zh;
}
