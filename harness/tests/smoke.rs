use scopecheck::sync::atomic::{AtomicUsize, Ordering};
use scopecheck::sync::Arc;
use scopecheck::{thread, Builder, Strategy};

fn fai(n: usize) -> impl Fn() {
    move || {
        let x = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..n)
            .map(|_| {
                let x = x.clone();
                thread::spawn(move || {
                    x.fetch_add(1, Ordering::Relaxed);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    }
}

#[test]
fn smoke_fai() {
    for n in 1..=5 {
        let r = Builder::new().explore(fai(n));
        println!("n={n}: {r}");
        let mut b = Builder::new();
        b.strategy = Strategy::Reference;
        if n <= 3 {
            let r2 = b.explore(fai(n));
            println!("  reference: {r2}");
        }
    }
}

fn rot(n: usize) -> impl Fn() {
    move || {
        let x = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (1..=n)
            .map(|i| {
                let x = x.clone();
                thread::spawn(move || {
                    let _ = x.compare_exchange(i - 1, i, Ordering::Relaxed, Ordering::Relaxed);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    }
}

fn readers(n: usize) -> impl Fn() {
    move || {
        let x = Arc::new(AtomicUsize::new(0));
        let x1 = x.clone();
        let w = thread::spawn(move || x1.store(42, Ordering::Release));
        let hs: Vec<_> = (0..n)
            .map(|_| {
                let x = x.clone();
                thread::spawn(move || {
                    x.load(Ordering::Acquire);
                })
            })
            .collect();
        w.join().unwrap();
        for h in hs {
            h.join().unwrap();
        }
    }
}

#[test]
fn smoke_rot() {
    for n in 2..=7 {
        let r = Builder::new().explore(rot(n));
        println!("rot n={n}: {r}");
    }
    for n in 1..=6 {
        let r = Builder::new().explore(readers(n));
        println!("readers n={n}: {r}");
    }
    let r = Builder::new().explore(|| {
        let x = Arc::new(AtomicUsize::new(0));
        let x1 = x.clone();
        let t = thread::spawn(move || {
            for _ in 0..10 {
                x1.fetch_add(1, Ordering::Relaxed);
            }
        });
        for _ in 0..10 {
            x.fetch_add(1, Ordering::Relaxed);
        }
        t.join().unwrap();
    });
    println!("2x10: {r}");
}
