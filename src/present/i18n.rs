//! The page's words in two languages (pure: no DOM). Every user-visible string of the web
//! app is a message in a Project Fluent catalog, `www/locales/<lang>/main.ftl`, embedded in
//! the binary (they are small). [`Catalog`] looks messages up, falling back to English per
//! message when the chosen language lacks one (never to a blank); [`negotiate`] picks the
//! language from the page's query, the remembered choice and the browser's languages.

use std::borrow::Cow;

use fluent_bundle::{FluentArgs, FluentBundle, FluentResource, FluentValue};

/// The languages the app speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    #[default]
    En,
    ZhCn,
}

impl Lang {
    /// Every language, in the order the language switch lists them.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::ZhCn];

    /// The BCP 47 tag: `<html lang>`, `?lang=`, the lesson folders (`lessons/zh-CN/`).
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhCn => "zh-CN",
        }
    }

    /// The language's name in itself, for the language switch.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::ZhCn => "简体中文",
        }
    }

    /// The language a BCP 47 tag asks for: `en`, `en-GB` → English; `zh`, `zh-CN`,
    /// `zh-Hans`, `zh-SG` (any Chinese: the app has Simplified Chinese only) → Chinese.
    /// Case-insensitive; `_` is read as `-`.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let tag = tag.trim().replace('_', "-").to_ascii_lowercase();
        let primary = tag.split('-').next().unwrap_or("");
        match primary {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::ZhCn),
            _ => None,
        }
    }

    /// The catalog's Fluent source.
    pub fn source(self) -> &'static str {
        match self {
            Lang::En => include_str!("../../www/locales/en/main.ftl"),
            Lang::ZhCn => include_str!("../../www/locales/zh-CN/main.ftl"),
        }
    }
}

/// The value of `lang` in a query string (`?lang=zh-CN&x`), if any.
pub fn query_lang(query: &str) -> Option<String> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == "lang")
        .map(|(_, v)| v.replace('+', " ").trim().to_string())
}

/// The page's language: the query's `?lang=` if the app speaks it, then the remembered
/// choice, then the first of the browser's languages (`navigator.languages`, in order of
/// preference) that the app speaks, else English.
pub fn negotiate(query: Option<&str>, remembered: Option<&str>, browser: &[String]) -> Lang {
    query
        .and_then(Lang::from_tag)
        .or_else(|| remembered.and_then(Lang::from_tag))
        .or_else(|| browser.iter().find_map(|t| Lang::from_tag(t)))
        .unwrap_or_default()
}

/// One variable of a message (`{ $count }`).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Text(String),
    Number(f64),
}

impl From<&str> for Arg {
    fn from(s: &str) -> Self {
        Arg::Text(s.to_string())
    }
}
impl From<String> for Arg {
    fn from(s: String) -> Self {
        Arg::Text(s)
    }
}
impl From<&String> for Arg {
    fn from(s: &String) -> Self {
        Arg::Text(s.clone())
    }
}
macro_rules! number_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg {
            fn from(n: $t) -> Self {
                Arg::Number(n as f64)
            }
        }
    )*};
}
number_arg!(i32, i64, u32, u64, usize, f64);

impl From<crate::core::tensor::StorageId> for Arg {
    fn from(id: crate::core::tensor::StorageId) -> Self {
        Arg::Text(id.to_string())
    }
}
impl From<&crate::core::tensor::StorageId> for Arg {
    fn from(id: &crate::core::tensor::StorageId) -> Self {
        Arg::Text(id.to_string())
    }
}
impl From<crate::core::tensor::DType> for Arg {
    fn from(dtype: crate::core::tensor::DType) -> Self {
        Arg::Text(dtype.name().to_string())
    }
}
impl From<&crate::core::tensor::DType> for Arg {
    fn from(dtype: &crate::core::tensor::DType) -> Self {
        Arg::Text(dtype.name().to_string())
    }
}

impl From<&&String> for Arg {
    fn from(s: &&String) -> Self {
        Arg::Text((*s).clone())
    }
}

/// A message with its variables, to be put into words when shown (so that a change of
/// language re-words what is on the page).
#[derive(Clone, Debug, PartialEq)]
pub struct Msg {
    pub id: &'static str,
    pub args: Vec<(&'static str, Arg)>,
}

impl Msg {
    pub fn new(id: &'static str) -> Self {
        Msg {
            id,
            args: Vec::new(),
        }
    }

    /// Adds variable `name`.
    pub fn arg(mut self, name: &'static str, value: impl Into<Arg>) -> Self {
        self.args.push((name, value.into()));
        self
    }
}

type Bundle = FluentBundle<FluentResource>;

fn bundle(lang: Lang) -> Bundle {
    let id = lang
        .tag()
        .parse()
        .unwrap_or_else(|_| unic_langid::LanguageIdentifier::default());
    let mut bundle = FluentBundle::new(vec![id]);
    // No Unicode isolation marks around variables: the page's text is read by tests and
    // screen readers as written.
    bundle.set_use_isolating(false);
    // A catalog with a syntax error keeps its good messages (the tests below keep both
    // catalogs free of errors).
    let resource = match FluentResource::try_new(lang.source().to_string()) {
        Ok(r) => r,
        Err((r, _)) => r,
    };
    let _ = bundle.add_resource(resource);
    bundle
}

/// The messages of one language, with English behind it.
pub struct Catalog {
    lang: Lang,
    bundle: Bundle,
    /// English, for messages the chosen language lacks (None when it is English).
    fallback: Option<Bundle>,
}

impl Catalog {
    pub fn new(lang: Lang) -> Self {
        Catalog {
            lang,
            bundle: bundle(lang),
            fallback: (lang != Lang::En).then(|| bundle(Lang::En)),
        }
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// Whether the chosen language itself has message `id`.
    pub fn has(&self, id: &str) -> bool {
        self.bundle.has_message(id)
    }

    /// `msg` in words.
    pub fn msg(&self, msg: &Msg) -> String {
        self.format(msg.id, &msg.args)
    }

    /// Message `id` without variables.
    pub fn text(&self, id: &str) -> String {
        self.format(id, &[])
    }

    /// Message `id` with `args`; from English when the chosen language lacks it; the id
    /// itself when no catalog has it (visible in review, never blank).
    pub fn format(&self, id: &str, args: &[(&str, Arg)]) -> String {
        let fluent_args = (!args.is_empty()).then(|| {
            let mut a = FluentArgs::new();
            for (k, v) in args {
                match v {
                    Arg::Text(s) => a.set(*k, FluentValue::from(s.clone())),
                    Arg::Number(n) => a.set(*k, FluentValue::from(*n)),
                }
            }
            a
        });
        for b in std::iter::once(&self.bundle).chain(self.fallback.as_ref()) {
            if let Some(text) = format_in(b, id, fluent_args.as_ref()) {
                return text.into_owned();
            }
        }
        id.to_string()
    }
}

fn format_in<'b>(b: &'b Bundle, id: &str, args: Option<&FluentArgs>) -> Option<Cow<'b, str>> {
    let pattern = b.get_message(id)?.value()?;
    let mut errors = Vec::new();
    Some(b.format_pattern(pattern, args, &mut errors))
}

/// The message ids of a Fluent source, in order (for checks and tests).
pub fn message_ids(source: &str) -> Vec<String> {
    source
        .lines()
        .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.trim().to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn engine_badges_count_in_english_plurals() {
        let en = Catalog::new(Lang::En);
        let badge = |gpu: i64, count: i64| {
            en.msg(
                &Msg::new("engine-gpu-verified")
                    .arg("adapter", "A")
                    .arg("gpu", gpu)
                    .arg("cpu", 0i64)
                    .arg("count", count),
            )
        };
        assert_eq!(
            badge(1, 1),
            "A · 1 op as compute shaders, 0 on the CPU · 1 storage read back and verified"
        );
        assert_eq!(
            badge(3, 2),
            "A · 3 ops as compute shaders, 0 on the CPU · 2 storages read back and verified"
        );
    }

    #[test]
    fn negotiation_takes_the_query_then_the_remembered_choice_then_the_browser() {
        let browser = vec!["fr-FR".to_string(), "zh-TW".to_string(), "en".to_string()];
        assert_eq!(negotiate(Some("en"), Some("zh-CN"), &browser), Lang::En);
        assert_eq!(negotiate(Some("klingon"), Some("zh-CN"), &[]), Lang::ZhCn);
        assert_eq!(negotiate(None, None, &browser), Lang::ZhCn);
        assert_eq!(
            negotiate(None, Some("garbage"), &["en-GB".into()]),
            Lang::En
        );
        assert_eq!(negotiate(None, None, &["de".into()]), Lang::En);
        assert_eq!(Lang::from_tag("ZH_hans"), Some(Lang::ZhCn));
        assert_eq!(Lang::from_tag(""), None);
        assert_eq!(query_lang("?embed&lang=zh-CN#x"), Some("zh-CN#x".into()));
        assert_eq!(query_lang("?lang=zh-CN&readonly"), Some("zh-CN".into()));
        assert_eq!(query_lang("?readonly"), None);
    }

    #[test]
    fn both_catalogs_parse_without_errors() {
        for lang in Lang::ALL {
            if let Err((_, errors)) = FluentResource::try_new(lang.source().to_string()) {
                panic!("{}: {errors:?}", lang.tag());
            }
        }
    }

    #[test]
    fn both_catalogs_have_the_same_messages_with_the_same_variables() {
        let vars = |lang: Lang| {
            let source = lang.source();
            // Variables per message, read from the message's lines.
            let mut out = std::collections::BTreeMap::new();
            let mut current = String::new();
            for line in source.lines() {
                if line.starts_with('#') || line.trim().is_empty() {
                    continue;
                }
                if line.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                    current = line.split('=').next().unwrap_or("").trim().to_string();
                    out.insert(current.clone(), BTreeSet::new());
                }
                let mut rest = line;
                while let Some(i) = rest.find('$') {
                    let name: String = rest[i + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                        .collect();
                    if let Some(set) = out.get_mut(&current) {
                        set.insert(name);
                    }
                    rest = &rest[i + 1..];
                }
            }
            out
        };
        let en = vars(Lang::En);
        let zh = vars(Lang::ZhCn);
        let en_ids: BTreeSet<_> = en.keys().collect();
        let zh_ids: BTreeSet<_> = zh.keys().collect();
        assert_eq!(
            en_ids.difference(&zh_ids).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "messages missing in zh-CN"
        );
        assert_eq!(
            zh_ids.difference(&en_ids).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "messages only in zh-CN"
        );
        for (id, v) in &en {
            assert_eq!(Some(v), zh.get(id), "variables of {id}");
        }
        assert!(en.len() > 100, "{} messages", en.len());
    }

    #[test]
    fn messages_format_with_variables_and_plurals() {
        let en = Catalog::new(Lang::En);
        assert_eq!(
            en.format("mem-live", &[("bytes", "24 B".into()), ("count", 1.into())]),
            "24 B live in 1 storage"
        );
        assert_eq!(
            en.format("mem-live", &[("bytes", "48 B".into()), ("count", 2.into())]),
            "48 B live in 2 storages"
        );
        let zh = Catalog::new(Lang::ZhCn);
        assert_eq!(
            zh.format("mem-live", &[("bytes", "48 B".into()), ("count", 2.into())]),
            "2 个存储，共 48 B"
        );
    }

    #[test]
    fn a_missing_message_falls_back_to_english_then_to_its_id() {
        let zh = Catalog::new(Lang::ZhCn);
        assert!(!zh.has("no-such-message"));
        assert_eq!(zh.text("no-such-message"), "no-such-message");
        // A message English has and Chinese lacks: English.
        let mut partial = Catalog::new(Lang::ZhCn);
        partial.bundle = FluentBundle::new(vec!["zh-CN".parse().expect("tag")]);
        partial.bundle.set_use_isolating(false);
        assert_eq!(
            partial.text("lang-label"),
            Catalog::new(Lang::En).text("lang-label")
        );
    }
}
