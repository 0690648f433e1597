// Issue 28's pure parts of the client under node: the quick-chat phrases (sent as ordinary chat,
// so they must pass the chat's limits) and the rules pages' text (every part, in both languages,
// for both games). Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quickPhrases } from '../../static/js/quick-chat.js';
import * as fourPlayer from '../../static/js/rules/four-player.js';
import * as hiddenFront from '../../static/js/rules/hidden-front.js';

test('quick chat: the phrases players expect, in Chinese and English, each a valid chat message', () => {
  const zh = quickPhrases('zh');
  for (const p of ['你好', '好棋', '再来一局', '快点吧', '谢谢', '不好意思', '失误了']) assert.ok(zh.includes(p), p);
  const en = quickPhrases('en');
  assert.equal(en.length, zh.length, 'the same phrases in English');
  assert.ok(en.every(p => /^[\x20-\x7e]+$/.test(p)), 'English phrases are in English');
  assert.deepEqual(quickPhrases('fr'), zh, 'another language falls back to Chinese');
  // docs/protocol.md §9: 1–200 characters after trimming; no phrase twice
  for (const p of [...zh, ...en]) assert.ok(p.trim().length >= 1 && p.trim().length <= 200, p);
  assert.equal(new Set(zh).size, zh.length);
});

const PARTS = ['board', 'pieces', 'deploy', 'moving', 'combat', 'endings', 'clocks', 'options'];

test('rules pages: both games tell every part, in Chinese and in English, in the same order', () => {
  for (const [game, text] of [['four_player', fourPlayer], ['hidden_front', hiddenFront]]) {
    for (const lang of ['zh', 'en']) {
      assert.deepEqual(text[lang].map(([id]) => id), PARTS, `${game} ${lang}`);
      for (const [id, title, blocks] of text[lang]) {
        assert.ok(title && blocks.length > 0, `${game} ${lang} ${id}`);
        for (const b of blocks) {
          if (b && b.table) assert.ok(b.table.every(row => row.length === b.head.length), `${game} ${lang} ${id}: table rows`);
        }
      }
    }
  }
  const words = (text, lang) => JSON.stringify(text[lang]);
  // the numbers of the specs (rules.md §2, §3, §7, §9, §10; hidden-front.md §2, §5)
  for (const n of ['129', '25', '300', '90', '30', '60', '10–120', '50–2000']) assert.ok(words(fourPlayer, 'zh').includes(n), n);
  for (const n of ['60', '100', '10']) assert.ok(words(hiddenFront, 'zh').includes(n), n);
  // the pieces table: 25 pieces of 12 kinds
  const table = fourPlayer.zh.find(([id]) => id === 'pieces')[2].find(b => b.table).table;
  assert.equal(table.length, 12);
  assert.equal(table.reduce((n, row) => n + row[1], 0), 25);
});
