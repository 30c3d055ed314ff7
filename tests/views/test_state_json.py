"""``ksandbox sim -o json`` prints views.state.state_json: the text of
``json.dumps(session.view(), indent=2)``, byte for byte (its events encoded by column)."""

from __future__ import annotations

import json

import pytest

from ksandbox.apiserver import store as store_mod
from ksandbox.cli import main
from ksandbox.resources import data_path, sample_cluster_names
from ksandbox.views import state


def _printed_and_plain(monkeypatch, capsys, *args: str) -> tuple[str, str]:
    seen: list[str] = []
    fast = state.state_json

    def spy(session):
        seen.append(json.dumps(session.view(), indent=2))
        return fast(session)

    monkeypatch.setattr(state, "state_json", spy)
    assert main(["sim", *args, "-o", "json"]) == 0, capsys.readouterr().err
    assert len(seen) == 1
    return capsys.readouterr().out, seen[0] + "\n"


@pytest.mark.parametrize("name", sample_cluster_names())
def test_every_sample_prints_the_plain_view_as_json_dumps_writes_it(monkeypatch, capsys, name):
    args = ["-f", str(data_path("sample_clusters") / f"{name}.yaml"), "--until", "200"]
    script = data_path("sample_clusters") / f"{name}.script.yaml"
    if script.exists():
        args += ["--script", str(script)]
    printed, plain = _printed_and_plain(monkeypatch, capsys, *args)
    assert printed == plain
    assert '"events": [' in printed or '"events": []' in printed


def test_dropped_events_and_an_empty_log(monkeypatch, capsys, tmp_path):
    path = str(data_path("sample_clusters") / "default.yaml")
    monkeypatch.setattr(store_mod, "MAX_EVENTS", 5)
    printed, plain = _printed_and_plain(monkeypatch, capsys, "-f", path, "--until", "60")
    assert printed == plain and '"eventsDropped": ' in printed
    quiet = tmp_path / "quiet.yaml"
    quiet.write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: quiet\n")
    printed, plain = _printed_and_plain(monkeypatch, capsys, "-f", str(quiet))
    assert printed == plain and '"events": []' in printed
