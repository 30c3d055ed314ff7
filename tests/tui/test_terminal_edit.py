"""`:edit deploy web` in the real binary, in tmux: the editor opens on kubectl edit's file,
a refused save shows kubectl's reasons and stays open, a good save says
"deployment.apps/web edited" and the change is in the cluster (kubectl
pkg/cmd/util/editor/editoptions.go outcomes)."""

from __future__ import annotations

from pathlib import Path

from terminal import terminal  # noqa: F401  (fixture)

from ksandbox.session import Session

ROOT = Path(__file__).resolve().parents[2]
FAILURE = "sample_clusters/node-failure.yaml"


def test_edit_in_the_terminal(terminal):  # noqa: F811
    # Where `  replicas:` is in the file the editor opens (4 header lines, then get -o yaml).
    text = Session.from_files([ROOT / FAILURE]).submit("kubectl get deploy web -o yaml").output
    line = 4 + text.splitlines().index("  replicas: 3")
    term = terminal([FAILURE, "--paused"], 160, 48)
    term.wait_for(r"nodes\[4\]")
    term.keys(":edit deploy web", "Enter")
    term.wait_for(r"Please edit the object below")
    term.keys(*(["Down"] * line), "End", "BSpace")
    term.wait_for(r"replicas: *▎")
    term.keys("--", "-1")                # ("--": tmux would read -1 as its own flag)
    term.wait_for(r"replicas: -1")
    term.keys("C-s")
    term.wait_for(r'# deployments\.apps "web" was not valid:')
    screen = term.wait_for(r"# \* spec\.replicas: Invalid value: -1: must be greater than or equal to 0")
    assert "replicas: -1" in screen                      # the editor kept the text
    term.keys("BSpace", "BSpace")
    term.wait_for(r"replicas: *▎")
    term.type("5")
    term.wait_for(r"replicas: 5 *▎")
    term.keys("C-s")
    term.wait_for(r"deployment\.apps/web edited")
    # gone: its header and its title (ctrl+s save) both off the screen
    term.wait_until(lambda s: "Please edit the object below" not in s and "ctrl+s save" not in s)
    term.keys(":get deploy web", "Enter")
    term.wait_for(r"web\s+\S+/5\s")
