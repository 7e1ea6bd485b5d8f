//! Widenings ask everywhere (issue 44): a change of the settings or the policy that lets more
//! through without an operator is stored only when its author confirmed it — `"confirmWidening":
//! true` in the body of `PUT /api/settings/safety`, `/quorum`, `/notifications` (and the window's
//! commands of the same names), `--yes` in the CLI (`policy apply`, `policy quorum`). What widens is
//! decided in one place, [`super::policy::changes`], and judged in the transaction that stores the
//! change (`store::settings::save_judged`), so a change made meanwhile by another cannot slip under
//! it. Unconfirmed: `widening_unconfirmed` (HTTP 409), its details listing what widens, nothing
//! stored. Confirmed: stored, and the audit entry notes what widened (`settings.changed`'s and
//! `policy.applied`'s `widens`).

use super::policy::{Documents, PolicyFile};
use crate::console::expiry::ExpirySettings;
use crate::domain::risk::custom::RiskRules;
use crate::domain::safety::{QuorumSettings, SafetySettings};
use crate::domain::Error;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::borrow::Cow;
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};

/// Whether the caller confirmed that a change may widen what runs without an operator. Without
/// it a widening is refused (`widening_unconfirmed`, listing what widens) and nothing is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Widening {
    Unconfirmed,
    Confirmed,
}

impl Widening {
    /// `--yes`, `confirmWidening`.
    pub fn confirmed(yes: bool) -> Self {
        if yes {
            Widening::Confirmed
        } else {
            Widening::Unconfirmed
        }
    }

    /// What widens from `old` to `new` ([`super::policy::widenings`]) when that is confirmed, to
    /// note in the audit entry; a refusal naming it when it is not.
    pub fn judge(self, old: &PolicyFile, new: &PolicyFile) -> Result<Vec<String>, Error> {
        let widens = super::policy::widenings(old, new);
        if !widens.is_empty() && self == Widening::Unconfirmed {
            return Err(Error::WideningUnconfirmed { widens });
        }
        Ok(widens)
    }

    /// [`Widening::judge`] of a change of one settings document (the policy's other parts alike).
    pub fn of<T: Part>(self) -> impl FnOnce(&T, &T) -> Result<Vec<String>, Error> {
        move |old, new| self.judge(&T::policy(old), &T::policy(new))
    }

    /// [`Widening::judge`] of a whole policy, from the four documents stored.
    pub fn of_policy(
        self,
        new: &PolicyFile,
    ) -> impl FnOnce((SafetySettings, QuorumSettings, ExpirySettings, RiskRules)) -> Result<Vec<String>, Error> + '_ {
        move |(safety, quorum, expiry, risk)| self.judge(&PolicyFile::of(&Documents { safety, quorum, expiry, risk }), new)
    }
}

/// A settings document that is part of the policy.
pub trait Part: Clone {
    /// The policy of this document, its other parts at their defaults.
    fn policy(&self) -> PolicyFile;
}

impl Part for SafetySettings {
    fn policy(&self) -> PolicyFile {
        PolicyFile::of(&Documents { safety: self.clone(), ..Default::default() })
    }
}

impl Part for QuorumSettings {
    fn policy(&self) -> PolicyFile {
        PolicyFile::of(&Documents { quorum: self.clone(), ..Default::default() })
    }
}

/// A settings document as a request body, with `"confirmWidening": true` when a widening is meant
/// (absent: `false`). The document keeps its own strictness: any other unknown field is refused.
#[derive(Clone, Debug, PartialEq)]
pub struct Confirmable<T> {
    pub settings: T,
    pub confirm_widening: bool,
}

impl<T> Confirmable<T> {
    pub fn widening(&self) -> Widening {
        Widening::confirmed(self.confirm_widening)
    }

    /// The document, and whether a widening of it was confirmed.
    pub fn parts(self) -> (T, Widening) {
        let widening = self.widening();
        (self.settings, widening)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Confirmable<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut fields = serde_json::Map::<String, Value>::deserialize(d)?;
        let confirm_widening = match fields.remove("confirmWidening") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(yes)) => yes,
            Some(other) => return Err(D::Error::custom(format!("confirmWidening: true or false, not {other}"))),
        };
        let settings = serde_json::from_value(Value::Object(fields)).map_err(D::Error::custom)?;
        Ok(Self { settings, confirm_widening })
    }
}

impl<T: utoipa::ToSchema> utoipa::PartialSchema for Confirmable<T> {
    fn schema() -> RefOr<Schema> {
        let confirm = ObjectBuilder::new().property(
            "confirmWidening",
            ObjectBuilder::new().schema_type(Type::Boolean).description(Some(
                "true: store it even though it widens what runs without an operator (else `widening_unconfirmed`, listing what widens)",
            )),
        );
        AllOfBuilder::new().item(RefOr::Ref(Ref::from_schema_name(T::name()))).item(confirm).into()
    }
}

impl<T: utoipa::ToSchema> utoipa::ToSchema for Confirmable<T> {
    fn name() -> Cow<'static, str> {
        Cow::Owned(format!("{}Change", T::name()))
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((T::name().into_owned(), T::schema()));
        T::schemas(schemas);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn confirm_widening_is_read_beside_the_document_which_keeps_refusing_unknown_fields() {
        let c: Confirmable<SafetySettings> = serde_json::from_value(json!({ "highRiskTools": ["a"], "confirmWidening": true })).unwrap();
        assert_eq!(c.clone().parts(), (SafetySettings { high_risk_tools: vec!["a".into()], ..Default::default() }, Widening::Confirmed));
        let c: Confirmable<SafetySettings> = serde_json::from_value(json!({ "highRiskTools": [] })).unwrap();
        assert_eq!(c.widening(), Widening::Unconfirmed);
        assert!(serde_json::from_value::<Confirmable<SafetySettings>>(json!({ "highRiskTool": [] })).is_err());
        assert!(serde_json::from_value::<Confirmable<SafetySettings>>(json!({ "confirmWidening": "yes" })).is_err());
    }

    #[test]
    fn only_a_widening_needs_a_confirmation_and_the_refusal_lists_it() {
        let on = SafetySettings { high_risk_tools: vec!["wire".into()], high_risk_passkey: true, receipt_ttl_secs: None };
        let off = SafetySettings { high_risk_passkey: false, ..on.clone() };
        let e = Widening::Unconfirmed.of::<SafetySettings>()(&on, &off).unwrap_err();
        let Error::WideningUnconfirmed { widens } = &e else { panic!("{e}") };
        assert!(widens.len() == 1 && widens[0].contains("passkey") && widens[0].contains("(widens"), "{widens:?}");
        assert_eq!(Widening::Confirmed.of::<SafetySettings>()(&on, &off).unwrap(), *widens);
        assert!(Widening::Unconfirmed.of::<SafetySettings>()(&off, &on).unwrap().is_empty(), "narrowing asks nothing");
        let two = QuorumSettings::default().with("wire", 2).unwrap();
        assert!(Widening::Unconfirmed.of::<QuorumSettings>()(&two, &QuorumSettings::default()).is_err(), "a quorum removed");
        assert!(Widening::Unconfirmed.of::<QuorumSettings>()(&QuorumSettings::default(), &two).unwrap().is_empty());
    }
}
