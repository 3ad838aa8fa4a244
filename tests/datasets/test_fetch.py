"""fetch_uw / `proxlearn fetch` against a local HTTP server (never the internet)."""

import functools
import hashlib
import http.server
import socket
import threading

import pytest

from proxlearn.cli import main
from proxlearn.datasets import UW_FILES, fetch_uw, load_dataset
from proxlearn.exceptions import DatasetNotFoundError, DownloadError


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no access log in the test output
        pass


def _serve(folder):
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


@pytest.fixture
def mirror(uw_dir, monkeypatch):
    """The shared UW files served on 127.0.0.1 as the pinned commit's raw files."""
    server = _serve(uw_dir)
    monkeypatch.setenv("PROXLEARN_UW_URL", f"http://127.0.0.1:{server.server_address[1]}/")
    yield uw_dir
    server.shutdown()
    server.server_close()


def test_pinned_checksums_match_the_shared_files(uw_dir):
    for name, digest in UW_FILES.items():
        assert hashlib.sha256((uw_dir / name).read_bytes()).hexdigest() == digest


def test_fetch_then_load(mirror, tmp_path):
    seen = []
    path = fetch_uw("aural_sonar", data_home=tmp_path, progress=lambda d, t: seen.append((d, t)))
    assert path == tmp_path / "uw" / "aural_sonar.mat"
    assert path.read_bytes() == (mirror / "aural_sonar.mat").read_bytes()
    assert seen and seen[-1][0] == path.stat().st_size
    ds = load_dataset("aural_sonar", data_home=tmp_path)
    assert ds.n == 100 and ds.source == str(path.resolve())
    # a derived set needs only protein's file
    assert fetch_uw("protein-2", data_home=tmp_path).name == "protein.mat"
    assert load_dataset("protein-2", data_home=tmp_path).n == 144


def test_second_fetch_downloads_nothing(mirror, tmp_path, monkeypatch):
    fetch_uw("voting", data_home=tmp_path)
    monkeypatch.setenv("PROXLEARN_UW_URL", "http://127.0.0.1:9/")  # would fail if asked
    assert fetch_uw("voting", data_home=tmp_path).is_file()


def test_checksum_mismatch_keeps_nothing(tmp_path, monkeypatch):
    bad = tmp_path / "srv"
    bad.mkdir()
    (bad / "voting.mat").write_bytes(b"<html>a captive portal</html>")
    server = _serve(bad)
    monkeypatch.setenv("PROXLEARN_UW_URL", f"http://127.0.0.1:{server.server_address[1]}")
    try:
        with pytest.raises(DownloadError, match="SHA-256.*not the pinned.*deleted"):
            fetch_uw("voting", data_home=tmp_path / "home")
    finally:
        server.shutdown()
        server.server_close()
    assert not [p for p in (tmp_path / "home").rglob("*") if p.is_file()]


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_offline_error_says_where_to_put_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PROXLEARN_UW_URL", f"http://127.0.0.1:{_closed_port()}/")
    with pytest.raises(DownloadError, match=r"could not download.*put it at .*uw/protein\.mat"):
        fetch_uw("protein", data_home=tmp_path)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_unknown_name():
    with pytest.raises(DatasetNotFoundError, match="aural_sonar"):
        fetch_uw("synthetic-1")


def test_cli_fetch(mirror, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["fetch", "aural_sonar", "voting", "--data-home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"aural_sonar: {tmp_path / 'uw' / 'aural_sonar.mat'}" in out.splitlines()
    assert (tmp_path / "uw" / "voting.mat").is_file()
    assert main(["fetch", "--all", "--data-home", str(tmp_path)]) == 0
    assert (tmp_path / "uw" / "protein.mat").is_file()


def test_cli_fetch_errors(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PROXLEARN_UW_URL", f"http://127.0.0.1:{_closed_port()}/")
    assert main(["fetch", "voting", "--data-home", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("proxlearn: error: could not download") and err.count("\n") == 1
    assert main(["fetch", "--data-home", str(tmp_path)]) == 2
    assert "name at least one" in capsys.readouterr().err


def test_fetch_from_a_file_url(uw_dir, tmp_path, monkeypatch):
    """A file:// mirror crashed on the response's missing .length (issue #39, item 2.12)."""
    monkeypatch.setenv("PROXLEARN_UW_URL", uw_dir.resolve().as_uri())
    seen = []
    path = fetch_uw("aural_sonar", data_home=tmp_path, progress=lambda d, t: seen.append((d, t)))
    assert path == tmp_path / "uw" / "aural_sonar.mat"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == UW_FILES["aural_sonar.mat"]
    assert seen and seen[-1][0] == path.stat().st_size


@pytest.mark.parametrize("url", ["not a url", "ftp//missing-colon", "nosuchscheme://x/"])
def test_malformed_mirror_url_is_a_download_error(url, tmp_path, monkeypatch):
    monkeypatch.setenv("PROXLEARN_UW_URL", url)
    with pytest.raises(DownloadError, match="PROXLEARN_UW_URL must be a URL"):
        fetch_uw("voting", data_home=tmp_path)


def test_a_failed_fetch_leaves_no_empty_folder(tmp_path, monkeypatch):
    """An offline fetch left an empty uw/ folder behind (issue #39, section 4)."""
    monkeypatch.setenv("PROXLEARN_UW_URL", f"http://127.0.0.1:{_closed_port()}/")
    home = tmp_path / "new-home"
    with pytest.raises(DownloadError):
        fetch_uw("voting", data_home=home)
    assert not home.exists()
