//! The words of desktop notifications and the tray, in English or Japanese. They follow the
//! operator's desktop locale (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`, as gettext reads them),
//! like the window's "system" language does through WebKitGTK — unless the window says the
//! operator chose a language there ([`Lang::choose`], the desktop app); a browser on `serve
//! --notify` keeps its choice to itself.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// The language chosen in the window: 0 none (the locale's), 1 English, 2 Japanese.
static CHOSEN: AtomicU8 = AtomicU8::new(0);

/// A language the console speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    En,
    Ja,
}

impl Lang {
    /// The language of a POSIX locale or a `LANGUAGE` list (`ja_JP.UTF-8`, `ja:en`, `C`): the first
    /// entry the console speaks; `None` when none is (so the next variable is asked).
    pub fn from_locale(value: &str) -> Option<Self> {
        value.split(':').find_map(|entry| {
            let primary = entry.split(['_', '.', '@', '-']).next().unwrap_or("").to_ascii_lowercase();
            match primary.as_str() {
                "ja" => Some(Self::Ja),
                "en" | "c" | "posix" => Some(Self::En),
                _ => None,
            }
        })
    }

    /// The language chosen in the window if any, else the one of this process's locale (read from
    /// the environment once; English by default).
    pub fn current() -> Self {
        match CHOSEN.load(Ordering::Relaxed) {
            1 => Self::En,
            2 => Self::Ja,
            _ => Self::of_locale(),
        }
    }

    /// The language of this process's locale.
    pub fn of_locale() -> Self {
        static LANG: OnceLock<Lang> = OnceLock::new();
        *LANG.get_or_init(|| Self::from_env(|name| std::env::var(name).ok()))
    }

    /// The operator chose a language in the window (`None`: the system's, i.e. the locale's).
    pub fn choose(lang: Option<Self>) {
        CHOSEN.store(
            match lang {
                None => 0,
                Some(Self::En) => 1,
                Some(Self::Ja) => 2,
            },
            Ordering::Relaxed,
        );
    }

    /// `en`, `ja`, or `system` (`None`), as the window names its choices.
    pub fn parse_choice(text: &str) -> Option<Option<Self>> {
        match text {
            "system" => Some(None),
            "en" => Some(Some(Self::En)),
            "ja" => Some(Some(Self::Ja)),
            _ => None,
        }
    }

    /// As gettext looks: `LANGUAGE` (unless the locale is `C`), then `LC_ALL`, `LC_MESSAGES`, `LANG`.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Self {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].into_iter().find_map(set);
        if locale.as_deref().is_some_and(|l| l != "C" && l != "POSIX") {
            if let Some(lang) = set("LANGUAGE").and_then(|l| Self::from_locale(&l)) {
                return lang;
            }
        }
        locale.and_then(|l| Self::from_locale(&l)).unwrap_or(Self::En)
    }

    /// "5 min", "2 h 30 min"; "5 分", "2 時間 30 分".
    pub fn duration(self, secs: u64) -> String {
        match self {
            Self::En => crate::domain::human_secs(secs),
            Self::Ja => match secs {
                s if s < 60 => format!("{s} 秒"),
                s if s < 3600 => format!("{} 分", s / 60),
                s if s < 86_400 && s % 3600 == 0 => format!("{} 時間", s / 3600),
                s if s < 86_400 => format!("{} 時間 {} 分", s / 3600, (s % 3600) / 60),
                s => format!("{} 日", s / 86_400),
            },
        }
    }

    pub fn approve(self) -> &'static str {
        self.pick("Approve", "承認")
    }

    pub fn decline(self) -> &'static str {
        self.pick("Decline", "拒否")
    }

    pub fn open(self) -> &'static str {
        self.pick("Open", "開く")
    }

    /// The summary of one approval.
    pub fn wants_to_run(self, agent: &str, tool: &str) -> String {
        match self {
            Self::En => format!("{agent} wants to run {tool}"),
            Self::Ja => format!("{agent} が {tool} の実行を求めています"),
        }
    }

    /// The summary of one suspended call.
    pub fn waits_for_answer(self, agent: &str, tool: &str) -> String {
        match self {
            Self::En => format!("{agent}: {tool} waits for an answer"),
            Self::Ja => format!("{agent}: {tool} が回答を待っています"),
        }
    }

    /// The last line of one call's notice.
    pub fn engine_line(self, engine: &str, short_fingerprint: &str) -> String {
        match self {
            Self::En => format!("engine {engine} · fingerprint {short_fingerprint}"),
            Self::Ja => format!("エンジン {engine} · フィンガープリント {short_fingerprint}"),
        }
    }

    /// Who asked for the call (`Principal::key()`: `token:claude-hook`, `local:alice`).
    pub fn requester_line(self, key: &str) -> String {
        let (kind, name) = key.split_once(':').unwrap_or(("", key));
        match (self, kind) {
            (Self::En, "local") => format!("asked for by the local admin {name}"),
            (Self::En, _) => format!("asked for by credential {name}"),
            (Self::Ja, "local") => format!("要求元: ローカル管理者 {name}"),
            (Self::Ja, _) => format!("要求元の資格情報: {name}"),
        }
    }

    /// Where a call of a tool with a quorum stands (the two-person rule): `1 of 2 approvals:
    /// alice (web)`, or the quorum alone while nobody approved.
    pub fn approvals_line(self, quorum: u32, approved_by: &[String]) -> String {
        let names = approved_by.join(", ");
        match (self, approved_by.len()) {
            (Self::En, 0) => format!("Needs {quorum} approvals by different operators"),
            (Self::En, n) => format!("{n} of {quorum} approvals: {names}"),
            (Self::Ja, 0) => format!("異なるオペレーター {quorum} 人の承認が必要です"),
            (Self::Ja, n) => format!("承認 {n}/{quorum}: {names}"),
        }
    }

    /// The last line of a notice that shows only part of its call (and offers no Approve).
    pub fn cut_line(self) -> &'static str {
        self.pick("Cut: open the call to see all of it", "省略: 全体は呼び出しを開いて確認してください")
    }

    /// The line of a notice whose call has look-alike characters (and offers no Approve).
    pub fn lookalike_line(self) -> &'static str {
        self.pick("Has characters that look like others: check in the window", "紛らわしい文字があります: ウィンドウで確認してください")
    }

    /// The line of a notice whose call is rated medium or above: its level and most serious reason
    /// (the reasons are the rules' own words, in English); a high or critical call offers no Approve.
    pub fn risk_line(self, level: crate::domain::risk::Level, reason: &str) -> String {
        use crate::domain::risk::Level;
        let word = match (self, level) {
            (Self::En, l) => l.as_str(),
            (Self::Ja, Level::Low) => "低",
            (Self::Ja, Level::Medium) => "中",
            (Self::Ja, Level::High) => "高",
            (Self::Ja, Level::Critical) => "重大",
        };
        let reason = if reason.is_empty() { String::new() } else { format!(" — {reason}") };
        match self {
            Self::En => format!("Risk: {word}{reason}"),
            Self::Ja => format!("リスク: {word}{reason}"),
        }
    }

    /// The summary of several calls told together.
    pub fn calls_waiting(self, n: usize) -> String {
        match self {
            Self::En => format!("{n} calls waiting"),
            Self::Ja => format!("{n} 件の呼び出しが待っています"),
        }
    }

    /// The line after the first three of several calls.
    pub fn and_more(self, n: usize) -> String {
        match self {
            Self::En => format!("… and {n} more"),
            Self::Ja => format!("… ほか {n} 件"),
        }
    }

    /// The summary of an expiry warning.
    pub fn expires_in(self, left_secs: u64, tool: &str) -> String {
        let left = self.duration(left_secs);
        match self {
            Self::En => format!("Expires in {left}: {tool}"),
            Self::Ja => format!("あと {left} で期限切れ: {tool}"),
        }
    }

    /// The first line of an expiry warning's body; `at` is a local `HH:MM`.
    pub fn expiry_body(self, at: &str) -> String {
        match self {
            Self::En => format!("Nobody decided; at {at} it is declined as expired."),
            Self::Ja => format!("まだ誰も判断していません。{at} に期限切れとして拒否されます。"),
        }
    }

    /// The tray's menu and tooltip.
    pub fn tray_open(self) -> &'static str {
        self.pick("Open Approval Console", "Approval Console を開く")
    }

    pub fn tray_pause(self) -> &'static str {
        self.pick("Pause notifications", "通知を一時停止")
    }

    pub fn tray_quit(self) -> &'static str {
        self.pick("Quit", "終了")
    }

    pub fn tray_waiting(self, count: usize) -> String {
        match (self, count) {
            (Self::En, 0) => "Approval Console: nothing waiting".to_owned(),
            (Self::En, n) => format!("Approval Console: {n} waiting"),
            (Self::Ja, 0) => "Approval Console: 待機中の呼び出しはありません".to_owned(),
            (Self::Ja, n) => format!("Approval Console: {n} 件が待機中"),
        }
    }

    fn pick(self, en: &'static str, ja: &'static str) -> &'static str {
        match self {
            Self::En => en,
            Self::Ja => ja,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> Lang {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        Lang::from_env(|name| map.get(name).cloned())
    }

    #[test]
    fn the_language_follows_the_locale_as_gettext_reads_it() {
        assert_eq!(env(&[]), Lang::En);
        assert_eq!(env(&[("LANG", "ja_JP.UTF-8")]), Lang::Ja);
        assert_eq!(env(&[("LANG", "ja_JP.UTF-8"), ("LC_ALL", "en_US.UTF-8")]), Lang::En, "LC_ALL wins over LANG");
        assert_eq!(env(&[("LANG", "en_US.UTF-8"), ("LC_MESSAGES", "ja_JP.UTF-8")]), Lang::Ja);
        assert_eq!(env(&[("LANG", "en_US.UTF-8"), ("LANGUAGE", "fr:ja:en")]), Lang::Ja, "the first spoken one of LANGUAGE");
        assert_eq!(env(&[("LANG", "C"), ("LANGUAGE", "ja")]), Lang::En, "gettext ignores LANGUAGE under the C locale");
        assert_eq!(env(&[("LANG", "de_DE.UTF-8")]), Lang::En, "a language the console does not speak");
        assert_eq!(env(&[("LANG", ""), ("LC_ALL", ""), ("LC_MESSAGES", "ja_JP")]), Lang::Ja, "empty variables are unset");
    }

    #[test]
    fn a_language_chosen_in_the_window_wins_over_the_locale_until_system_is_chosen_again() {
        assert_eq!(Lang::parse_choice("ja"), Some(Some(Lang::Ja)));
        assert_eq!(Lang::parse_choice("system"), Some(None));
        assert_eq!(Lang::parse_choice("fr"), None);
        let locale = Lang::of_locale();
        let other = if locale == Lang::En { Lang::Ja } else { Lang::En };
        Lang::choose(Some(other));
        assert_eq!(Lang::current(), other);
        Lang::choose(None);
        assert_eq!(Lang::current(), locale);
    }

    #[test]
    fn durations_in_both_languages() {
        assert_eq!(Lang::En.duration(90), "1 min");
        assert_eq!(Lang::Ja.duration(9000), "2 時間 30 分");
        assert_eq!(Lang::Ja.duration(3 * 86_400), "3 日");
        assert_eq!(Lang::Ja.expires_in(300, "delete_record"), "あと 5 分 で期限切れ: delete_record");
    }
}
