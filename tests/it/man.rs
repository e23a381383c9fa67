//! `latch man`: the committed pages under `docs/man/` are what the binary
//! generates, and `man` renders them.

use crate::util::latch;

#[test]
fn committed_man_pages_match_the_generated_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = latch().arg("man").arg(dir.path()).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man");
    let names = |d: &std::path::Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        names(dir.path()),
        names(&committed),
        "docs/man is stale: run `latch man docs/man`"
    );
    for name in names(dir.path()) {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(&name)).unwrap(),
            std::fs::read_to_string(committed.join(&name)).unwrap(),
            "docs/man/{name} is stale: run `latch man docs/man`"
        );
    }
    for page in ["latch.1", "latch-fire.1", "latch-trust-approve.1"] {
        assert!(names(&committed).contains(&page.to_owned()), "{page}");
    }
}

#[test]
fn man_renders_the_pages() {
    let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man/latch-fire.1");
    let Ok(out) = std::process::Command::new("man")
        .arg("-l")
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "80")
        .output()
    else {
        eprintln!("man is not installed: the rendering is not checked");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // man justifies the text: compare with the spaces squeezed.
    let text = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("latch-fire - Fire one event"), "{text}");
    assert!(text.contains("--trust"), "{text}");
    assert!(text.contains("SYNOPSIS"), "{text}");
}

#[test]
fn an_unwritable_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "").unwrap();
    let out = latch().arg("man").arg(file.join("sub")).output().unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the manual pages"));
}
