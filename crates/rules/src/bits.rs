//! A 129-bit station set (three words), for the move generator.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Bits(pub [u64; 3]);

impl Bits {
    #[inline(always)]
    pub fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1u64 << (i & 63);
    }
    #[inline(always)]
    pub fn clear(&mut self, i: usize) {
        self.0[i >> 6] &= !(1u64 << (i & 63));
    }
    #[inline(always)]
    pub fn has(&self, i: usize) -> bool {
        self.0[i >> 6] >> (i & 63) & 1 != 0
    }
    #[inline(always)]
    pub fn count(&self) -> u32 {
        self.0[0].count_ones() + self.0[1].count_ones() + self.0[2].count_ones()
    }
    #[inline(always)]
    pub fn or(self, o: Bits) -> Bits {
        Bits([self.0[0] | o.0[0], self.0[1] | o.0[1], self.0[2] | o.0[2]])
    }
    #[inline(always)]
    pub fn and(self, o: Bits) -> Bits {
        Bits([self.0[0] & o.0[0], self.0[1] & o.0[1], self.0[2] & o.0[2]])
    }
    #[inline(always)]
    pub fn and_not(self, o: Bits) -> Bits {
        Bits([self.0[0] & !o.0[0], self.0[1] & !o.0[1], self.0[2] & !o.0[2]])
    }
    #[inline(always)]
    pub fn any(&self) -> bool {
        (self.0[0] | self.0[1] | self.0[2]) != 0
    }
    /// Calls `f` for every member, ascending.
    #[inline(always)]
    pub fn for_each(&self, mut f: impl FnMut(usize)) {
        for w in 0..3 {
            let mut x = self.0[w];
            while x != 0 {
                let b = x.trailing_zeros() as usize;
                x &= x - 1;
                f(w * 64 + b);
            }
        }
    }
}
