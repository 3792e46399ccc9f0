//! The connections kept back from the pool for the answer's one call (`app::db::quick`): one that
//! answered is used again as it is, anything else goes back to the pool, at most half the pool
//! is kept, and a closing pool gets every one back.
use std::time::Duration;

use app::db::quick::{QuickConnections, FRESH};
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

async fn backend(quick: &mut app::db::quick::Quick<'_>) -> i32 {
    sqlx::query_scalar("select pg_backend_pid()")
        .fetch_one(quick.conn())
        .await
        .unwrap()
}

#[sqlx::test(migrations = "../migrations")]
async fn a_connection_that_answered_is_kept_and_any_other_goes_back_to_the_pool(pool: PgPool) {
    let pool = PgPoolOptions::new()
        .max_connections(4)
        .acquire_timeout(Duration::from_secs(1))
        .connect_with((*pool.connect_options()).clone())
        .await
        .unwrap();
    let quick = QuickConnections::new(pool.clone());

    // Done: kept, and the next call gets the same backend without the pool.
    let mut first = quick.acquire().await.unwrap();
    let pid = backend(&mut first).await;
    first.done();
    assert_eq!(quick.kept(), 1);
    let mut again = quick.acquire().await.unwrap();
    assert_eq!(quick.kept(), 0);
    assert_eq!(
        backend(&mut again).await,
        pid,
        "the kept connection is used again"
    );

    // Dropped without `done` (an error, a request dropped halfway): back to the pool, not kept.
    drop(again);
    assert_eq!(quick.kept(), 0);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(pool.num_idle(), 1, "the pool has it back");

    // Kept longer than FRESH: not handed out from here; the call still gets a working one.
    let kept = quick.acquire().await.unwrap();
    kept.done();
    assert_eq!(quick.kept(), 1);
    tokio::time::sleep(FRESH + Duration::from_millis(50)).await;
    let mut late = quick.acquire().await.unwrap();
    assert_eq!(quick.kept(), 0);
    backend(&mut late).await;
    late.done();

    // At most half the pool's connections are in these calls' hands: a third call waits its
    // turn, and is answered busy after as long as the pool would make it wait.
    let (a, b) = (
        quick.acquire().await.unwrap(),
        quick.acquire().await.unwrap(),
    );
    let started = std::time::Instant::now();
    let third = quick.acquire().await;
    assert_eq!(third.err(), Some(app::error::AppError::Overloaded));
    assert!(started.elapsed() >= Duration::from_millis(900));
    // Turns come in the order the calls asked: three callers arrive 20 ms apart while both are
    // taken, and each is let in as one is given back.
    let order = std::sync::Mutex::new(Vec::new());
    let waiter = |n: u32| {
        let (quick, order) = (&quick, &order);
        async move {
            tokio::time::sleep(Duration::from_millis(20 * u64::from(n))).await;
            let q = quick.acquire().await.unwrap();
            order.lock().unwrap().push(n);
            tokio::time::sleep(Duration::from_millis(50)).await;
            q.done();
        }
    };
    let release = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        a.done();
        tokio::time::sleep(Duration::from_millis(30)).await;
        b.done();
    };
    tokio::join!(waiter(1), waiter(2), waiter(3), release);
    assert_eq!(*order.lock().unwrap(), [1, 2, 3]);
    assert_eq!(quick.kept(), 2);

    // A closing pool gets the kept connections back (else closing would wait for them).
    tokio::time::timeout(Duration::from_secs(10), pool.close())
        .await
        .expect("the pool closes with connections kept");
    assert_eq!(quick.kept(), 0);
}
