"""Faults of rooflab's own reach the user as one line, never as a traceback."""


def test_an_internal_error_is_one_line_and_its_traceback_goes_to_a_file(monkeypatch, capsys):
    """A fault of rooflab's own (here: the store's listing breaks) never shows a traceback: one line says it is a bug
    and where the details are; the exit status is 70 (EX_SOFTWARE), apart from input errors (2)."""
    from rooflab.cli import main
    from rooflab.results.store import Store

    def broken(self, **kw):
        raise RuntimeError("listing broke")

    monkeypatch.setattr(Store, "runs", broken)
    monkeypatch.delenv("ROOFLAB_DEBUG", raising=False)
    assert main(["history"]) == 70
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "internal error (RuntimeError: listing broke)" in err and "fault in rooflab" in err
    path = err.rsplit("the details are in ", 1)[1].strip().rstrip(")")
    body = open(path, encoding="utf-8").read()
    assert "Traceback" in body and "listing broke" in body and "history" in body
