//! [`BySeat<T>`]: one value per seat, indexed by [`Seat`] (like scalachess's `ByColor`), instead of
//! `[T; 4]` arrays indexed by `seat.index()`. Iteration follows the turn order N → E → S → W.
//! JSON: an object keyed by seat letter, `{"N": .., "E": .., "S": .., "W": ..}`.
use crate::board::Seat;
use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// One `T` per seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BySeat<T>([T; 4]);

impl<T> BySeat<T> {
    /// Build from a function of the seat.
    pub fn from_fn(mut f: impl FnMut(Seat) -> T) -> BySeat<T> {
        BySeat(std::array::from_fn(|i| f(Seat::from_index(i))))
    }

    /// The values in turn order (N, E, S, W).
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.0.iter()
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.0.iter_mut()
    }

    /// `(seat, value)` in turn order.
    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        Seat::ALL.into_iter().zip(self.0.iter())
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Seat, &mut T)> {
        Seat::ALL.into_iter().zip(self.0.iter_mut())
    }

    /// A new `BySeat` of `f(seat, &value)`.
    pub fn map<'a, U>(&'a self, mut f: impl FnMut(Seat, &'a T) -> U) -> BySeat<U> {
        BySeat::from_fn(|s| f(s, &self[s]))
    }

    /// The seats whose value satisfies `f`, in turn order.
    pub fn seats_where<'a, F: FnMut(&T) -> bool + 'a>(
        &'a self,
        mut f: F,
    ) -> impl Iterator<Item = Seat> + 'a {
        self.iter().filter(move |(_, v)| f(v)).map(|(s, _)| s)
    }

    /// The four values as an array in seat-index order (N, E, S, W).
    pub fn into_array(self) -> [T; 4] {
        self.0
    }
}

impl<T> From<[T; 4]> for BySeat<T> {
    /// `a[i]` belongs to `Seat::from_index(i)`.
    fn from(a: [T; 4]) -> Self {
        BySeat(a)
    }
}

impl<T> BySeat<Option<T>> {
    /// The filled seats' values, if every seat is filled.
    pub fn all_filled(self) -> Option<BySeat<T>> {
        let [n, e, s, w] = self.0;
        Some(BySeat([n?, e?, s?, w?]))
    }
}

impl<T> Index<Seat> for BySeat<T> {
    type Output = T;
    fn index(&self, seat: Seat) -> &T {
        &self.0[seat.index()]
    }
}

impl<T> IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self.0[seat.index()]
    }
}

impl<T: Serialize> Serialize for BySeat<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(4))?;
        for (seat, v) in self.iter() {
            m.serialize_entry(&seat, v)?;
        }
        m.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for BySeat<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = BySeat<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object with one entry per seat (N, E, S, W)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BySeat<T>, A::Error> {
                let mut out: [Option<T>; 4] = Default::default();
                while let Some((seat, v)) = map.next_entry::<Seat, T>()? {
                    if out[seat.index()].replace(v).is_some() {
                        return Err(A::Error::custom(format!("seat {} twice", seat.letter())));
                    }
                }
                BySeat(out).all_filled().ok_or_else(|| A::Error::custom("a seat is missing"))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_iterates_and_round_trips() {
        let mut b = BySeat::from_fn(|s| s.letter().to_string());
        b[Seat::E].push('!');
        assert_eq!(b[Seat::E], "E!");
        let order: Vec<Seat> = b.iter().map(|(s, _)| s).collect();
        assert_eq!(order, Seat::ALL.to_vec());
        let json = serde_json::to_string(&b).unwrap();
        assert_eq!(json, r#"{"N":"N","E":"E!","S":"S","W":"W"}"#);
        assert_eq!(serde_json::from_str::<BySeat<String>>(&json).unwrap(), b);
        assert!(serde_json::from_str::<BySeat<u8>>(r#"{"N":1,"E":2,"S":3}"#).is_err());
        assert!(serde_json::from_str::<BySeat<u8>>(r#"{"N":1,"N":1,"E":2,"S":3,"W":4}"#).is_err());
        let filled: BySeat<Option<u8>> = BySeat::from_fn(|s| Some(s.index() as u8));
        assert_eq!(filled.all_filled().map(|b| b[Seat::W]), Some(3));
        let mut holes = filled;
        holes[Seat::S] = None;
        assert!(holes.all_filled().is_none());
        assert_eq!(b.seats_where(|v| v.len() == 2).collect::<Vec<_>>(), vec![Seat::E]);
    }
}
