//! Issue 19 (hardening), HTTP side: cross-site requests, the login limiter, usernames, cookies,
//! headers and the smaller items of finding 10.

use crate::support;
use crate::support::{error_code, Backend};
use serde_json::json;

/// Finding 6: another site cannot swap a signed-in player for a guest or sign them out.
async fn cross_site_posts_are_refused(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let c = support::new_client();
    for path in ["/api/auth/guest", "/api/auth/logout"] {
        let r =
            c.post(app.url(path)).header("Origin", "https://evil.example").send().await.unwrap();
        assert_eq!(error_code(r).await, (403, "cross_site_request".into()), "{path} by Origin");
        let r = c.post(app.url(path)).header("Sec-Fetch-Site", "cross-site").send().await.unwrap();
        assert_eq!(error_code(r).await, (403, "cross_site_request".into()), "{path} by fetch site");
    }
    // the site itself, and clients without those headers, still work
    let own = format!("http://{}", app.addr);
    let r = c
        .post(app.url("/api/auth/guest"))
        .header("Origin", own)
        .header("Sec-Fetch-Site", "same-origin")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let r = c.post(app.url("/api/auth/logout")).send().await.unwrap();
    assert_eq!(r.status(), 204);
    // reading is not affected
    let r = c.get(app.url("/api/rooms")).header("Sec-Fetch-Site", "cross-site").send().await;
    assert_eq!(r.unwrap().status(), 200);
    let _ = json!({});
}

both_backends!(cross_site_posts_are_refused);
