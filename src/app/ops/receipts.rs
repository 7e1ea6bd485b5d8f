//! Signed decision receipts (issue 29, docs/receipts.md): a call's receipt, for the place where its
//! tool runs (by the engine's run and tool-call ids) and for operators (by the call's or the
//! receipt's id); the console's key rotated by an admin. The public keys are served by hand
//! (`GET /.well-known/jwks.json`, `api::console`).

use crate::app::receipts::{ReceiptQuery, ReceiptView, RotatedKey};

crate::declare_operations! {
    ReceiptOfCall(Nothing, query ReceiptQuery) -> ReceiptView, 200 "The receipt of the decision on the call an engine knows by these ids";
        errors [404 "not_found: no decision on that call yet"]
        |app, _, q, by| { Ok(app.receipt_of_call(&q, by).await?.into()) }

    Receipt(Id, none) -> ReceiptView, 200 "A call's receipt, by the call's id or the receipt's (`rct_…`)";
        errors [404 "not_found: no such call, or it has no decision yet"]
        |app, p, _, by| { Ok(app.receipt(&p.id, by).await?.into()) }

    RotateReceiptKey(Nothing, none) -> RotatedKey, 200 "A new signing key; the old one is retired (still published: what it signed before still verifies)";
        errors []
        |app, _, _, by| { Ok(app.rotate_receipt_key(by).await?.into()) }
}
