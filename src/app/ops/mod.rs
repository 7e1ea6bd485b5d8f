//! The console's operations that are one request and one answer, declared once each
//! ([`crate::declare_operations!`]) by area. The HTTP API, its OpenAPI document and the desktop
//! window's commands all come from these declarations ([`super::operation`]).

pub mod audit;
pub mod devices;
pub mod engines;
pub mod grants;
pub mod queue;
pub mod reach;
pub mod receipts;
pub mod settings;
pub mod tokens;

/// Tells `v` of every operation declared in these modules.
pub fn each(v: &mut impl super::operation::Visitor) {
    queue::each(v);
    audit::each(v);
    settings::each(v);
    grants::each(v);
    engines::each(v);
    tokens::each(v);
    devices::each(v);
    reach::each(v);
    receipts::each(v);
}
