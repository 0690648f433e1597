// Short sounds (move, combat, your turn, low time), made with WebAudio: no files to load. Off by
// default; the choice is remembered in localStorage.
const KEY = 'siguo_sound';
let ctx = null;

export const sound = {
  get on() { return localStorage.getItem(KEY) === 'on'; },
  set on(v) { localStorage.setItem(KEY, v ? 'on' : 'off'); },
  /** Play one of 'move' | 'combat' | 'turn' | 'low' if sound is on. */
  play(name) {
    if (!this.on) return;
    try {
      ctx = ctx || new (window.AudioContext || window.webkitAudioContext)();
      const tones = { move: [[520, 0.05]], combat: [[180, 0.09], [120, 0.12]], turn: [[660, 0.09], [880, 0.12]], low: [[1000, 0.06]] }[name];
      let at = ctx.currentTime;
      for (const [freq, dur] of tones || []) {
        const o = ctx.createOscillator(), g = ctx.createGain();
        o.frequency.value = freq;
        o.type = name === 'combat' ? 'square' : 'sine';
        g.gain.setValueAtTime(0.12, at);
        g.gain.exponentialRampToValueAtTime(0.001, at + dur);
        o.connect(g).connect(ctx.destination);
        o.start(at);
        o.stop(at + dur);
        at += dur;
      }
    } catch { /* no audio: nothing to do */ }
  },
};
