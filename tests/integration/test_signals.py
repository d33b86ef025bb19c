import subprocess
import sys
import textwrap

from rooflab.results.store import Store

SCRIPT = textwrap.dedent("""
    import os, signal, sys, time
    from rooflab.results.store import Store
    from rooflab.session import Session
    st = Store(sys.argv[1])
    with Session("bench", store=st, machine={"key": "t"}, environment={"hostname": "h"}) as s:
        s.record("first", {"v": 1})
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        s.record("never", {"v": 2})
""")


def test_sigterm_marks_the_run_interrupted_and_keeps_finished_work(tmp_path):
    db = tmp_path / "s.sqlite"
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(db)], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "SIGTERM" in r.stderr
    with Store(db) as st:
        doc = st.get("latest")
    assert doc["status"] == "interrupted"
    assert [x["name"] for x in doc["records"]] == ["first"]
