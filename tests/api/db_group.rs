//! Group commit (`Db::write_grouped`, src/db/group.rs): writes queued together commit together,
//! and a failing write is undone alone, gets its own error, and costs the others nothing.
use crate::support::{spawn_app, Backend};
use diesel::RunQueryDsl;
use siguo::error::AppError;

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

async fn rows(db: &siguo::db::Db, sql: &'static str) -> i64 {
    db.run(move |c| Ok(diesel::sql_query(sql).get_result::<Count>(c)?.n)).await.unwrap()
}

async fn failing_write_is_undone_alone(backend: Backend) {
    let app = spawn_app(backend).await;
    let db = app.state().db.clone();
    db.run(|c| {
        diesel::sql_query("CREATE TABLE group_probe (k INTEGER PRIMARY KEY, note TEXT NOT NULL)")
            .execute(c)?;
        Ok(())
    })
    .await
    .unwrap();

    // Many concurrent writes so that they share groups. Every 7th write inserts a good row and
    // then a duplicate key (it must fail and leave nothing, not even its first row).
    let mut tasks = vec![];
    for k in 0..200i32 {
        let db = db.clone();
        tasks.push(tokio::spawn(async move {
            let r = db
                .write_grouped(move |c| {
                    diesel::sql_query(format!(
                        "INSERT INTO group_probe (k, note) VALUES ({}, 'first')",
                        1000 + k
                    ))
                    .execute(c)?;
                    if k % 7 == 0 {
                        diesel::sql_query("INSERT INTO group_probe (k, note) VALUES (-1, 'dup')")
                            .execute(c)?;
                        diesel::sql_query("INSERT INTO group_probe (k, note) VALUES (-1, 'dup')")
                            .execute(c)?;
                    }
                    Ok(())
                })
                .await;
            (k, r)
        }));
    }
    let mut ok = 0;
    for t in tasks {
        let (k, r) = t.await.unwrap();
        if k % 7 == 0 {
            assert!(matches!(r, Err(AppError::Internal(_))), "write {k} must fail: {r:?}");
        } else {
            assert!(r.is_ok(), "write {k} must commit: {r:?}");
            ok += 1;
        }
    }
    assert_eq!(ok, 200 - 29);
    assert_eq!(rows(&db, "SELECT COUNT(*) AS n FROM group_probe").await, ok);
    assert_eq!(rows(&db, "SELECT COUNT(*) AS n FROM group_probe WHERE k = -1").await, 0);
    // the failed writes' first rows are gone too (each write is all-or-nothing)
    assert_eq!(
        rows(&db, "SELECT COUNT(*) AS n FROM group_probe WHERE (k - 1000) % 7 = 0").await,
        0
    );

    // the writer is still healthy after failures
    db.write_grouped(|c| {
        diesel::sql_query("INSERT INTO group_probe (k, note) VALUES (5, 'after')").execute(c)?;
        Ok(())
    })
    .await
    .unwrap();
    assert_eq!(rows(&db, "SELECT COUNT(*) AS n FROM group_probe WHERE k = 5").await, 1);
}

both_backends!(failing_write_is_undone_alone);
