//! The remote listener under floods and guessing (issue 44, point 9), over real TLS with several
//! loopback source addresses (127.0.0.x) for several peers. Reproduced before: 1,100 anonymous
//! sign-ins in 1.7 s pushed out a signed-in phone's pending step-up (one cap for all ceremonies,
//! oldest out); 35 wrong pairing codes from 7 addresses locked pairing for everyone for ten minutes
//! (30 in all); the sign-in options listed every paired device's credential id to anyone.

use super::helpers::*;
use super::remote::{refusals, Remote};
use approval_console::app::remote::PAIRING_WRONG_TRIES;
use approval_console::domain::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// `count` anonymous sign-ins from each of `addresses`, their clients side by side.
async fn sign_ins(r: &Remote, addresses: impl Iterator<Item = String>, count: usize) {
    let floods = addresses.map(|ip| {
        let client = r.from(&ip);
        async move {
            for _ in 0..count {
                let (status, body, _) = r.send(client.post(r.url("/api/remote/sign-in")).header("Origin", &r.origin)).await;
                assert_eq!(status, StatusCode::OK, "{ip}: {body}");
            }
        }
    });
    futures::future::join_all(floods).await;
}

#[tokio::test]
async fn a_flood_of_sign_ins_pushes_out_no_other_addresss_sign_in_and_no_phones_pending_step_up() {
    let t = spawn_app().await;
    let r = Remote::start(&t).await;
    let phone = r.from("127.0.0.2");
    let (_, started) = t.post("/api/devices/pairings", json!({ "name": "alice-phone", "person": "alice" })).await;
    let (mut passkey, cookie) = r.pair(&phone, &started).await;
    let bot = t.token("bot", Role::Agent).await;
    let item = t.paused_by(&bot, "delete rec-1").await;
    let step_up = r.begin_step_up(&phone, &cookie, &item, "approve").await;

    // Another phone of hers, at another address, begins signing in.
    let tablet = r.from("127.0.0.4");
    let (_, signing_in, _) = r.send(tablet.post(r.url("/api/remote/sign-in")).header("Origin", &r.origin)).await;

    // One address: 1,100 sign-ins started and never finished, more than the ceremonies kept in all.
    sign_ins(&r, std::iter::once("127.0.0.3".to_owned()), 1100).await;
    // The other address's sign-in is still there (the same passkey serves here).
    let finish = json!({ "ceremony": signing_in["ceremony"], "credential": passkey.assert(&signing_in["options"]) });
    let (status, signed_in, _) = r.send(tablet.post(r.url("/api/remote/sign-in/finish")).header("Origin", &r.origin).json(&finish)).await;
    assert_eq!(status, StatusCode::OK, "another address's sign-in outlived one address's flood: {signed_in}");
    // Many: 70 addresses × 16, more than the ceremonies kept in all.
    sign_ins(&r, (0..70).map(|i| format!("127.0.1.{}", i + 1)), 16).await;

    let (status, done) = r.approve_with(&phone, &cookie, &mut passkey, step_up, &item).await;
    assert_eq!(status, StatusCode::OK, "the step-up asked before the floods still approves: {done}");
    assert_eq!(done["decision"]["kind"], "approve", "{done}");
    let reasons = refusals(&t).await;
    assert!(!reasons.iter().any(|r| r.contains("step-up")), "no step-up was refused: {reasons:?}");
}

#[tokio::test]
async fn thirty_five_wrong_codes_from_seven_addresses_lock_those_seven_and_an_eighth_still_pairs() {
    let t = spawn_app().await;
    let r = Remote::start(&t).await;
    let (_, started) = t.post("/api/devices/pairings", json!({ "name": "alice-phone", "person": "alice" })).await;
    let code = started["code"].as_str().unwrap().to_owned();
    let r = &r;
    let pair = |client: reqwest::Client, code: String| async move {
        r.send(client.post(r.url("/api/remote/pair")).header("Origin", &r.origin).json(&json!({ "code": code }))).await
    };
    for a in 2..=8 {
        let client = r.from(&format!("127.0.0.{a}"));
        for i in 0..5 {
            let (status, body, _) = pair(client.clone(), format!("WRONG-{a}{i:04}")).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        }
        // That address is locked now, even with the right code.
        let (status, body, _) = pair(client, code.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(body["message"].as_str().unwrap().contains("too many"), "{body}");
    }
    // The phone, at another address: pairs at once.
    let (_, cookie) = r.pair(&r.from("127.0.0.9"), &started).await;
    let (status, _, _) = r.send(r.with(&cookie, r.http.get(r.url("/api/queue")))).await;
    assert_eq!(status, StatusCode::OK);
    let (_, devices) = t.get("/api/devices").await;
    assert_eq!(devices.as_array().map(Vec::len), Some(1), "{devices}");
    // Every failure is audited, at most 20 a minute one by one (the rest are counted into the next).
    let reasons = refusals(&t).await;
    assert!(reasons.len() >= 20, "{reasons:?}");
    assert!(reasons.iter().all(|r| r == "wrong, used or expired code" || r == "too many tries"), "{reasons:?}");
}

#[tokio::test]
async fn a_pairing_code_dies_after_too_many_wrong_codes_were_tried_while_it_was_live() {
    let t = spawn_app().await;
    let _r = Remote::start(&t).await;
    let (_, a) = t.post("/api/devices/pairings", json!({ "name": "alice-phone", "person": "alice" })).await;
    let (_, b) = t.post("/api/devices/pairings", json!({ "name": "bob-phone", "person": "bob" })).await;
    // Five wrong codes from each of many addresses (each address's own limit), one short of the end.
    let wrong = |n: i64| {
        let app = t.app.clone();
        async move {
            let address = format!("10.{}.{}.{}", n / 5 / 65536, n / 5 / 256 % 256, n / 5 % 256);
            let refused = app.pair_begin(&format!("GUESS{n:05}"), &address).await.unwrap_err();
            assert_eq!(refused.code(), "invalid_request", "{refused}");
        }
    };
    for n in 0..PAIRING_WRONG_TRIES - 1 {
        wrong(n).await;
    }
    t.app.pair_begin(a["code"].as_str().unwrap(), "192.0.2.1").await.expect("a live code still pairs");
    // One more wrong code: B's pairing has seen enough.
    wrong(PAIRING_WRONG_TRIES - 1).await;
    let dead = t.app.pair_begin(b["code"].as_str().unwrap(), "192.0.2.2").await.unwrap_err();
    assert!(dead.to_string().contains("wrong, used or expired"), "{dead}");
    let (_, log) = t.get("/api/audit?limit=500").await;
    let ended: Vec<&Value> = log["entries"].as_array().unwrap().iter().filter(|e| e["action"] == "device.pairing_ended").collect();
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(
        (ended[0]["details"]["name"].as_str(), ended[0]["details"]["wrongTries"].as_i64()),
        (Some("bob-phone"), Some(PAIRING_WRONG_TRIES))
    );
    // Pairing is not locked: a new code works at once.
    let (_, c) = t.post("/api/devices/pairings", json!({ "name": "bob-phone", "person": "bob" })).await;
    t.app.pair_begin(c["code"].as_str().unwrap(), "192.0.2.3").await.expect("a new code pairs");
}
