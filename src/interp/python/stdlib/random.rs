//! Python's `random` module bit for bit as CPython 3.11 draws: the Mersenne Twister seeded
//! by `init_by_array` (an int seed's 32-bit words), `random()` from two draws
//! (`a >> 5`, `b >> 6`), and `randrange`/`randint`/`choice`/`shuffle`/`sample` through
//! `_randbelow` (rejection sampling on `getrandbits(n.bit_length())`).
//!
//! The state lives in the evaluator's module settings (`random.state`), so every evaluator
//! has its own. A script that never calls `random.seed` draws from seed 0 (CPython seeds
//! from the operating system, which no trace can match).

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

const N: usize = 624;
const M: usize = 397;
/// The module-settings key of the generator's state.
const STATE_KEY: &str = "random.state";

/// CPython's `_random.Random` state: the twister's words and the next index.
pub(crate) struct Twister {
    mt: [u32; N],
    index: usize,
}

impl Twister {
    /// `init_genrand(s)`.
    fn init_genrand(s: u32) -> Twister {
        let mut mt = [0u32; N];
        mt[0] = s;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Twister { mt, index: N }
    }

    /// `init_by_array(key)`: what `random.seed(n)` does with `abs(n)`'s 32-bit words.
    pub(crate) fn from_key(key: &[u32]) -> Twister {
        let mut t = Twister::init_genrand(19_650_218);
        let mt = &mut t.mt;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        t
    }

    /// The twister seeded with a Python int (`random.seed(n)`).
    pub(crate) fn from_seed(seed: i64) -> Twister {
        let mut n = seed.unsigned_abs();
        let mut key = Vec::new();
        while n > 0 {
            key.push((n & 0xffff_ffff) as u32);
            n >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        Twister::from_key(&key)
    }

    /// `genrand_uint32()`.
    pub(crate) fn next_u32(&mut self) -> u32 {
        const UPPER: u32 = 0x8000_0000;
        const LOWER: u32 = 0x7fff_ffff;
        let mag = |y: u32| if y & 1 == 1 { 0x9908_b0df } else { 0 };
        if self.index >= N {
            let mt = &mut self.mt;
            for kk in 0..N - M {
                let y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
                mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag(y);
            }
            for kk in N - M..N - 1 {
                let y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
                mt[kk] = mt[kk + M - N] ^ (y >> 1) ^ mag(y);
            }
            let y = (mt[N - 1] & UPPER) | (mt[0] & LOWER);
            mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag(y);
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `random()`: 53 random bits as a float in [0, 1).
    pub(crate) fn random(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `getrandbits(k)` for `k <= 64`: 32-bit words, least significant first.
    pub(crate) fn getrandbits(&mut self, k: u32) -> u64 {
        if k == 0 {
            return 0;
        }
        if k <= 32 {
            return u64::from(self.next_u32() >> (32 - k));
        }
        let lo = u64::from(self.next_u32());
        let hi = u64::from(self.next_u32() >> (64 - k));
        (hi << 32) | lo
    }

    /// `_randbelow(n)` for `n > 0`.
    pub(crate) fn randbelow(&mut self, n: u64) -> u64 {
        let k = 64 - n.leading_zeros();
        let mut r = self.getrandbits(k);
        while r >= n {
            r = self.getrandbits(k);
        }
        r
    }

    fn to_value(&self) -> Value {
        let mut words: Vec<Value> = self.mt.iter().map(|&w| Value::Int(i64::from(w))).collect();
        words.push(Value::Int(self.index as i64));
        Value::Tuple(words)
    }

    fn from_value(value: &Value) -> Option<Twister> {
        let Value::Tuple(words) = value else {
            return None;
        };
        let mut mt = [0u32; N];
        for (slot, w) in mt.iter_mut().zip(words) {
            let Value::Int(w) = w else { return None };
            *slot = *w as u32;
        }
        let Some(Value::Int(index)) = words.get(N) else {
            return None;
        };
        Some(Twister {
            mt,
            index: *index as usize,
        })
    }
}

/// An int argument (`operator.index`).
fn index_arg(v: &Value) -> R<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(i64::from(*b)),
        other => Err(ScriptError::Type(format!(
            "'{}' object cannot be interpreted as an integer",
            other.type_name()
        ))),
    }
}

/// A real-number argument.
fn float_arg(v: &Value) -> R<f64> {
    match v {
        Value::Int(i) => Ok(*i as f64),
        Value::Bool(b) => Ok(f64::from(u8::from(*b))),
        Value::Float(f) => Ok(*f),
        other => Err(ScriptError::Type(format!(
            "unsupported operand type(s) for -: '{}' and '{}'",
            other.type_name(),
            other.type_name()
        ))),
    }
}

/// `randrange(start, stop, step)` as CPython 3.11 computes it.
fn randrange(t: &mut Twister, start: i64, stop: Option<i64>, step: i64) -> R<i64> {
    let Some(stop) = stop else {
        if start > 0 {
            return Ok(t.randbelow(start as u64) as i64);
        }
        return Err(ScriptError::Value("empty range for randrange()".into()));
    };
    let width = stop - start;
    if step == 1 {
        if width > 0 {
            return Ok(start + t.randbelow(width as u64) as i64);
        }
        return Err(ScriptError::Value(format!(
            "empty range for randrange() ({start}, {stop}, {width})"
        )));
    }
    let n = match step {
        0 => return Err(ScriptError::Value("zero step for randrange()".into())),
        s if s > 0 => (width + s - 1).div_euclid(s),
        s => (width + s + 1).div_euclid(s),
    };
    if n <= 0 {
        return Err(ScriptError::Value("empty range for randrange()".into()));
    }
    Ok(start + step * t.randbelow(n as u64) as i64)
}

/// `sample(population, k)`: the pool algorithm for small populations, the set one otherwise.
fn sample(t: &mut Twister, population: Vec<Value>, k: i64) -> R<Vec<Value>> {
    let n = population.len();
    if k < 0 || k as usize > n {
        return Err(ScriptError::Value(
            "Sample larger than population or is negative".into(),
        ));
    }
    let k = k as usize;
    let mut setsize = 21usize;
    if k > 5 {
        // 4 ** ceil(log(3k, 4)), as CPython computes it in floating point.
        let e = ((3 * k) as f64).log(4.0).ceil() as u32;
        setsize += 4usize.saturating_pow(e);
    }
    let mut out = Vec::with_capacity(k);
    if n <= setsize {
        let mut pool = population;
        for i in 0..k {
            let j = t.randbelow((n - i) as u64) as usize;
            out.push(pool[j].clone());
            pool[j] = pool[n - i - 1].clone();
        }
    } else {
        let mut selected = std::collections::HashSet::new();
        for _ in 0..k {
            let mut j = t.randbelow(n as u64) as usize;
            while selected.contains(&j) {
                j = t.randbelow(n as u64) as usize;
            }
            selected.insert(j);
            out.push(population[j].clone());
        }
    }
    Ok(out)
}

impl Evaluator {
    fn load_twister(&self) -> Twister {
        self.torch
            .module_settings
            .iter()
            .find(|(k, _)| k == STATE_KEY)
            .and_then(|(_, v)| Twister::from_value(v))
            .unwrap_or_else(|| Twister::from_seed(0))
    }

    fn store_twister(&mut self, t: &Twister) {
        let value = t.to_value();
        match self
            .torch
            .module_settings
            .iter_mut()
            .find(|(k, _)| k == STATE_KEY)
        {
            Some(slot) => slot.1 = value,
            None => self.torch.module_settings.push((STATE_KEY.into(), value)),
        }
    }

    /// `random.shuffle(x)`: the shuffled list (the caller stores it back where `x` was read).
    pub(crate) fn random_shuffle(&mut self, list: Value) -> R<Value> {
        let Value::List(mut items) = list else {
            return Err(ScriptError::Type(format!(
                "'{}' object does not support item assignment",
                list.type_name()
            )));
        };
        let mut t = self.load_twister();
        for i in (1..items.len()).rev() {
            let j = t.randbelow(i as u64 + 1) as usize;
            items.swap(i, j);
        }
        self.store_twister(&t);
        Ok(Value::List(items))
    }

    /// `random.name(*pos)`.
    pub(crate) fn call_random(&mut self, name: &str, pos: &[Value]) -> R<Value> {
        let arg = |i: usize| -> R<&Value> {
            pos.get(i).ok_or_else(|| {
                ScriptError::Type(format!("{name}() missing required positional argument"))
            })
        };
        if name == "seed" {
            let t = match pos.first() {
                None | Some(Value::None) => Twister::from_seed(0),
                Some(Value::Int(n)) => Twister::from_seed(*n),
                Some(Value::Bool(b)) => Twister::from_seed(i64::from(*b)),
                Some(Value::Float(f)) if f.fract() == 0.0 && f.abs() < 9.0e18 => {
                    Twister::from_seed(*f as i64)
                }
                Some(other) => {
                    return Err(ScriptError::NotImplemented(format!(
                        "random.seed of a {} is not supported by Stridescope (ints are)",
                        other.type_name()
                    )))
                }
            };
            self.store_twister(&t);
            return Ok(Value::None);
        }
        if name == "shuffle" {
            // A list no name holds: shuffled and dropped, as in Python.
            self.random_shuffle(arg(0)?.clone())?;
            return Ok(Value::None);
        }
        let mut t = self.load_twister();
        let result = match name {
            "random" => Value::Float(t.random()),
            "uniform" => {
                let (a, b) = (float_arg(arg(0)?)?, float_arg(arg(1)?)?);
                Value::Float(a + (b - a) * t.random())
            }
            "getrandbits" => {
                let k = index_arg(arg(0)?)?;
                if k < 0 {
                    return Err(ScriptError::Value(
                        "number of bits must be non-negative".into(),
                    ));
                }
                if k > 63 {
                    return Err(ScriptError::NotImplemented(
                        "random.getrandbits of more than 63 bits is not supported by Stridescope"
                            .into(),
                    ));
                }
                Value::Int(t.getrandbits(k as u32) as i64)
            }
            "randint" => {
                let (a, b) = (index_arg(arg(0)?)?, index_arg(arg(1)?)?);
                Value::Int(randrange(&mut t, a, Some(b + 1), 1)?)
            }
            "randrange" => {
                let start = index_arg(arg(0)?)?;
                let stop = pos.get(1).map(index_arg).transpose()?;
                let step = pos.get(2).map(index_arg).transpose()?.unwrap_or(1);
                Value::Int(randrange(&mut t, start, stop, step)?)
            }
            "choice" => {
                let items = self.iterate(arg(0)?)?;
                if items.is_empty() {
                    return Err(ScriptError::Index(
                        "Cannot choose from an empty sequence".into(),
                    ));
                }
                let j = t.randbelow(items.len() as u64) as usize;
                items[j].clone()
            }
            "sample" => {
                let population = arg(0)?;
                if matches!(population, Value::Dict(_) | Value::OrderedDict(_)) {
                    return Err(ScriptError::Type(
                        "Population must be a sequence.  For dicts or sets, use sorted(d).".into(),
                    ));
                }
                let items = self.iterate(population)?;
                let k = index_arg(arg(1)?)?;
                Value::List(sample(&mut t, items, k)?)
            }
            _ => {
                return Err(ScriptError::Attribute(format!(
                    "module 'random' has no attribute '{name}'"
                )))
            }
        };
        self.store_twister(&t);
        Ok(result)
    }
}

/// The functions of `random` Stridescope runs.
pub(crate) const FUNCTIONS: &[&str] = &[
    "seed",
    "random",
    "uniform",
    "getrandbits",
    "randint",
    "randrange",
    "choice",
    "shuffle",
    "sample",
];

#[cfg(test)]
mod tests {
    use super::Twister;

    #[test]
    fn seed_zero_matches_cpython() {
        // CPython 3.11: random.seed(0); random.random() -> 0.8444218515250481
        let mut t = Twister::from_seed(0);
        assert_eq!(t.random(), 0.844_421_851_525_048_1);
    }
}
