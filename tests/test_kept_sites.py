"""Finished sites kept between checkouts (tools/site/kept_sites.py): a fresh clone copies a
site built from the same inputs, whole or not at all; the store keeps the newest few; a store
that cannot be written only means a build of its own. (The site itself: tests/test_site.py.)"""

import os

from tools.site import kept_sites


def a_site(folder, text):
    (folder / "lab").mkdir(parents=True)
    (folder / "index.html").write_text(text)
    (folder / "lab" / "index.html").write_text(text + " lab")
    return folder


def test_a_site_kept_by_one_checkout_is_copied_whole_by_another(tmp_path):
    store = tmp_path / "store"
    built = a_site(tmp_path / "one" / "build" / "site", "made once")
    kept_sites.keep("d1", built, store)
    other = tmp_path / "two" / "build" / "site"
    other.parent.mkdir(parents=True)
    assert kept_sites.restore("d1", other, store)
    assert (other / "lab" / "index.html").read_text() == "made once lab"
    assert not other.with_name("site.partial").exists()


def test_other_inputs_find_nothing_and_leave_the_output_alone(tmp_path):
    store = tmp_path / "store"
    kept_sites.keep("d1", a_site(tmp_path / "built", "old"), store)
    output = a_site(tmp_path / "output", "mine")
    assert not kept_sites.restore("d2", output, store)
    assert (output / "index.html").read_text() == "mine"


def test_a_half_kept_site_is_not_taken(tmp_path):
    """A store's folder without its index.html (a copy cut short by a crash): build again."""
    store = tmp_path / "store"
    (store / "d1" / "lab").mkdir(parents=True)
    assert not kept_sites.restore("d1", tmp_path / "site", store)


def test_the_store_keeps_the_newest_sites_only(tmp_path):
    store = tmp_path / "store"
    for number in range(kept_sites.KEEP + 2):
        kept_sites.keep(f"d{number}", a_site(tmp_path / f"b{number}", str(number)), store)
        os.utime(store / f"d{number}", (number * 100, number * 100))
    kept_sites.keep("latest", a_site(tmp_path / "last", "latest"), store)
    names = sorted(path.name for path in store.iterdir() if path.is_dir())
    newest = [f"d{n}" for n in range(2, kept_sites.KEEP + 2)][-(kept_sites.KEEP - 1) :]
    assert names == sorted(["latest", *newest])


def test_a_store_that_cannot_be_written_keeps_nothing_and_raises_nothing(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    site = a_site(tmp_path / "site", "x")
    kept_sites.keep("d1", site, blocked / "store")
    assert not kept_sites.restore("d1", tmp_path / "out", blocked / "store")


def test_the_store_is_in_the_users_cache(monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "/x/cache")
    assert str(kept_sites.store()) == "/x/cache/mcp_lesson/sites"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert kept_sites.store() == kept_sites.Path.home() / ".cache" / "mcp_lesson" / "sites"
