"""Start-up loads only what the first screen needs (issue 11 item 5: first frame ≤ 0.7 s).

``ksandbox`` with no arguments loads the default sample, then opens the board. Each module
kept out of that path is start-up time saved; these tests hold the laziness so that one new
top-level import does not quietly bring it back. They check *what is loaded* (``sys.modules``
of a fresh interpreter), not how long it takes: a timing test would fail on a busy machine
and pass on a slow change. The figure itself is ``bench/startup.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Every kubectl verb's module: imported when a command line is parsed or run, never at start
# (the control plane imports the commands package for the drain runner).
VERB_MODULES = ("apply", "cordon", "create", "delete", "describe", "drain", "edit", "get",
                "label", "patch", "rollout", "run", "sandbox", "scale", "taint", "top")


def _loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


# The modules of kinds the sandbox only stores (ConfigMaps, RBAC, networking, cluster-level
# objects): imported when such an object is first decoded (api/kinds.py KindInfo.type).
STORED_ONLY_KIND_MODULES = tuple(f"ksandbox.api.{m}" for m in (
    "core_objects", "rbac", "networking", "cluster_objects"))
# The storage kinds' types (PVs, claims, classes, CSI objects): the default sample holds none;
# the scheduler's volume plugins and validation compare names from api/storage_names.py. The
# HPA, budget, VPA, Job and CronJob types, the schedule parser, and the VPA's parts: their
# controllers import them when the first such object arrives.
LAZY_MODELLED_KIND_MODULES = tuple(f"ksandbox.api.{m}" for m in (
    "storage", "policy", "vpa", "batch", "cron")) + tuple(
    f"ksandbox.controllers.vpa.{m}" for m in ("admission", "model", "recommender", "targets",
                                              "updater")) + tuple(
    f"ksandbox.controllers.clusterautoscaler.{m}" for m in ("expander", "scale_down",
                                                            "scale_up", "templates"))

LOAD_DEFAULT_SAMPLE = """
from ksandbox import cli
from ksandbox.resources import sample_cluster_path
session = cli._load_session([str(sample_cluster_path("default"))], 0)
assert session.cp.store.nodes()
"""


def test_loading_the_default_sample_imports_no_command_verb():
    loaded = _loaded_after(LOAD_DEFAULT_SAMPLE)
    assert "ksandbox.commands.drain_run" in loaded        # the probe did build a sandbox
    assert not {f"ksandbox.commands.{v}" for v in VERB_MODULES} & loaded


def test_a_command_still_finds_its_verb():
    """The verbs load on first use: parsing and running a line works from a fresh start."""
    loaded = _loaded_after(LOAD_DEFAULT_SAMPLE + """
result = session.submit("kubectl cordon node-1")
assert result.error == "" and "cordoned" in result.output, result
from ksandbox.commands import parse
assert type(parse("kubectl uncordon node-1")).__name__ == "CordonCommand"
assert type(parse("kubectl create deployment web --image=nginx")).__name__ == "CreateGenerated"
assert type(parse("kubectl create -f x.yaml")).__name__ == "ApplyCommand"
""")
    assert "ksandbox.commands.cordon" in loaded


def test_a_small_sandbox_runs_without_numpy():
    """The shipped samples are small: the scheduler takes its plain path there (the fast path,
    numpy's, from FAST_PATH_MIN_NODES nodes), so numpy is never imported — not at start, not
    while the clock runs."""
    loaded = _loaded_after(LOAD_DEFAULT_SAMPLE + """
session.run_until(120)
# The scheduler did place pods (the Deployments' replicas, the GPU pod); nvme-cache stays
# Pending, so a filter failure and its diagnosis ran too.
pods = {p.metadata.name: p.spec.node_name for p in session.cp.store.list("Pod")}
assert pods["gpu-pod"] == "gpu-1" and pods["nvme-cache"] == ""
assert sum(1 for n in pods.values() if n) >= 10
""")
    assert "numpy" not in loaded
    assert "ksandbox.scheduler.framework.fast" not in loaded


WHATIF_MODULES = ("ksandbox.recording.branches", "ksandbox.recording.diff",
                  "ksandbox.views.diffwide", "ksandbox.views.state",
                  "ksandbox.tui.dialogs.base", "ksandbox.tui.dialogs.branches",
                  "ksandbox.tui.screens.diff")

# Modules the board's first frame does without: each is loaded on first use.
NOT_AT_FIRST_FRAME = (
    "numpy", "ksandbox.scheduler.framework.fast",
    *STORED_ONLY_KIND_MODULES, *LAZY_MODELLED_KIND_MODULES,
    "importlib.resources",                          # resources.py reads the package's path
    # PyYAML: the samples, the config and the themes are read by the fast path (fastyaml)
    "yaml", "ksandbox.api.safeload_pyyaml",
    *(f"ksandbox.commands.{v}" for v in VERB_MODULES),
    # Textual's TextArea: the YAML editor's only (tui/widgets/ordered_text_area.py)
    "textual.widgets._text_area", "ksandbox.tui.widgets.ordered_text_area",
    "hashlib",                                      # static pods' hash; css_cache's stamp
    "zoneinfo",                                     # a CronJob's time zone (api/cron.py)
    "textual.widgets._checkbox",                    # the recorder's annotate dialog only
    # the recording reader and writer: a live session's first frame does without them
    "ksandbox.recording.player", "ksandbox.recording.script",
    *(f"ksandbox.tui.dialogs.{d}" for d in ("annotate", "confirm", "drain", "goto", "label",
                                             "pressure", "scale", "taint", "untaint")),
    # what-if (tui/branches.py): the branch set, the diff and its view, the two dialogs (and
    # with them the dialogs' base) are loaded by the first w, W, D or ctrl+z
    *WHATIF_MODULES,
)


def test_the_first_frame_loads_none_of_the_later_parts():
    """The TUI on the default sample, up to the board's first frame (headless, as the tests
    drive it): the dialogs, the command verbs, numpy and importlib.resources stay unloaded."""
    loaded = _loaded_after(LOAD_DEFAULT_SAMPLE + """
import asyncio
from ksandbox.tui.app import make_app

async def first_frame():
    app = make_app(session, ticking=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#board").border_title == "nodes[5]"

asyncio.run(first_frame())
""")
    assert "ksandbox.tui.screens.main" in loaded
    assert not set(NOT_AT_FIRST_FRAME) & loaded, set(NOT_AT_FIRST_FRAME) & loaded


def test_the_what_if_keys_load_their_parts_when_first_pressed():
    """From a fresh start, each what-if key works though its parts were not loaded at the
    first frame: ctrl+z with nothing to undo, D with one branch, W's list, w's dialog forking
    a branch, D's diff of the two, ctrl+z undoing a command in the fork."""
    loaded = _loaded_after(LOAD_DEFAULT_SAMPLE + """
import asyncio, sys
from ksandbox.tui.app import make_app

async def keys():
    app = make_app(session, ticking=False)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await pilot.pause()
        assert not [m for m in WHATIF if m in sys.modules]
        said = lambda: [n.message for n in app._notifications]
        app.advance(5)     # main was opened at 0 s: its set is made later, it keeps that time
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert "nothing to undo: no command has run in this branch" in said(), said()
        await pilot.press("D")
        await pilot.pause()
        assert "Nothing to compare yet: press w to fork a branch" in said(), said()
        await pilot.press("W")
        await pilot.pause()
        assert type(app.screen).__name__ == "BranchListScreen"
        await pilot.press("escape", "w")
        await pilot.pause()
        assert type(app.screen).__name__ == "BranchNameDialog"
        app.screen.query_one("#branch-name").value = "cordoned"
        await pilot.press("enter")
        await pilot.pause()
        assert app.whatif.set.names == ["main", "cordoned"], app.whatif.set.names
        assert app.whatif.set.get("main").forked_at == 0.0
        app.submit("kubectl cordon node-1")
        await pilot.press("D")
        await pilot.pause()
        assert type(app.screen).__name__ == "DiffScreen"
        assert app.screen.query_one("#diff-scroll").border_title == \\
            "diff: cordoned (A) vs main (B)"
        assert "ksandbox.recording.diff" in sys.modules
        await pilot.press("escape", "ctrl+z")
        await pilot.pause()
        assert any(m.startswith("Undid `kubectl cordon node-1`") for m in said()), said()
        assert app.session.store.get("Node", "node-1").spec.unschedulable is False

WHATIF = %r
asyncio.run(keys())
""" % (WHATIF_MODULES,))
    assert set(WHATIF_MODULES) <= loaded


def test_a_stored_only_kind_loads_its_module_when_first_decoded():
    """The lazy kinds still decode, validate and print: a ConfigMap and a RoleBinding applied
    to the default sample from a fresh start."""
    loaded = _loaded_after(LOAD_DEFAULT_SAMPLE + '''
import sys
assert "ksandbox.api.rbac" not in sys.modules
manifest = """
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
"""
result = session.submit("kubectl apply -f -", manifest)
assert "configmap/settings created" in result.output, result
assert "settings" in session.submit("kubectl get configmaps").output
bad = """
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{kind: Group, name: devs, apiGroup: wrong.io}]
"""
result = session.submit("kubectl apply -f -", bad)
assert 'Unsupported value: "wrong.io"' in result.error, result
''')
    assert {"ksandbox.api.core_objects", "ksandbox.api.rbac"} <= loaded


def test_the_storage_kinds_load_their_module_when_first_decoded():
    """PVs, claims and classes from a fresh start: applied (one refused in kubectl's words),
    listed, described, bound by the PV controller and scheduled with by VolumeBinding."""
    loaded = _loaded_after(LOAD_DEFAULT_SAMPLE + '''
import sys
assert "ksandbox.api.storage" not in sys.modules
manifest = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: slow}
provisioner: example.com/slow
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /data}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers: [{name: db, image: postgres}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""
result = session.submit("kubectl apply -f -", manifest)
assert result.error == "", result
assert result.output.split("\\n")[:3] == ["storageclass.storage.k8s.io/slow created",
                                          "persistentvolume/pv-1 created",
                                          "persistentvolumeclaim/data created"], result
session.run_until(session.now + 30)
get = session.submit("kubectl get pvc data").output
assert "Bound" in get and "pv-1" in get, get
assert "Access Modes:    RWO" in session.submit("kubectl describe pv pv-1").output
assert session.cp.store.get("Pod", "db", "default").spec.node_name
bad = """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: bad}
spec:
  accessModes: [ReadWriteSometimes]
  resources: {requests: {storage: 1Gi}}
"""
result = session.submit("kubectl apply -f -", bad)
assert 'spec.accessModes: Unsupported value: "ReadWriteSometimes"' in result.error, result
''')
    assert "ksandbox.api.storage" in loaded


def test_the_autoscaler_and_batch_kinds_load_their_modules_when_first_needed():
    """An HPA, a budget, a VPA, a Job and a CronJob from a fresh start: applied (a bad
    schedule refused in kubectl's words), acted on by their controllers, listed."""
    loaded = _loaded_after(LOAD_DEFAULT_SAMPLE + '''
import sys
assert not {"ksandbox.api.batch", "ksandbox.api.vpa", "ksandbox.api.policy"} & set(sys.modules)
manifest = """
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: web}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  updatePolicy: {updateMode: "Off"}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    metadata: {annotations: {ksandbox.io/run-seconds: "5"}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: "*/1 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
"""
result = session.submit("kubectl apply -f -", manifest)
assert result.error == "", result
session.run_until(session.now + 130)
vpa = session.cp.store.get("VerticalPodAutoscaler", "web", "default")
assert vpa.status.recommendation is not None, vpa.status
assert "Complete" in session.submit("kubectl get job once").output
assert [j for j in session.cp.store.list("Job", "default") if j.metadata.name.startswith("tick-")]
assert "web" in session.submit("kubectl get hpa,pdb").output
bad = """
apiVersion: batch/v1
kind: CronJob
metadata: {name: never}
spec:
  schedule: "61 * * * *"
  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: b}]}}}}
"""
result = session.submit("kubectl apply -f -", bad)
assert "spec.schedule: Invalid value: \\"61 * * * *\\"" in result.error, result
''')
    assert {"ksandbox.api.batch", "ksandbox.api.vpa", "ksandbox.api.policy",
            "ksandbox.controllers.vpa.recommender"} <= loaded


def test_the_cluster_autoscaler_loads_its_parts_with_its_configuration():
    """The autoscaling sample from a fresh start: its configuration makes the cluster
    autoscaler import its parts, and it adds a node for the pods that do not fit."""
    loaded = _loaded_after("""
from ksandbox import cli
from ksandbox.resources import sample_cluster_path
session = cli._load_session([str(sample_cluster_path("autoscaling"))], 0)
before = len(session.cp.store.nodes())
assert session.submit("kubectl scale deployment my-ap --replicas=8").error == ""
session.run_until(300)
assert len(session.cp.store.nodes()) > before
""")
    assert "ksandbox.controllers.clusterautoscaler.scale_up" in loaded


def test_yaml_the_fast_path_hands_on_loads_pyyaml_when_first_needed():
    """PyYAML (api/safeload_pyyaml.py) is imported by the first text the fast path hands on —
    anchors here — and its errors keep their kubectl wording from a fresh start."""
    loaded = _loaded_after(LOAD_DEFAULT_SAMPLE + '''
import sys
assert "yaml" not in sys.modules
from ksandbox.api import safeload
docs = safeload.load_yaml_documents("a: &x [1, 2]\\nb: *x\\n", "f.yaml")
assert docs == [(1, {"a": [1, 2], "b": [1, 2]})], docs
result = session.submit("kubectl apply -f -", "kind: [\\n")
assert result.error == "error: STDIN (document 1): error converting YAML to JSON: yaml: line 2: did not find expected node content\\n", result
assert issubclass(safeload.LimitExceeded, __import__("yaml").YAMLError)
assert safeload.yaml_error(safeload.LimitExceeded(3, "too deep")).endswith("line 3: too deep")
''')
    assert {"yaml", "ksandbox.api.safeload_pyyaml"} <= loaded


def test_the_collector_is_tuned_before_the_heavy_imports():
    """``ksandbox.cli`` raises the young-generation threshold (gcpolicy) when it is imported,
    before the control plane and Textual are: at CPython's default the collector ran ~90
    collections over the freshly imported classes before the first frame."""
    proc = subprocess.run([sys.executable, "-c", "import gc, ksandbox.cli, ksandbox.gcpolicy as g;"
                           "print(gc.get_threshold()[0] >= g.THRESHOLDS[0],"
                           " 'ksandbox.session' in __import__('sys').modules)"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.split() == ["True", "False"], proc.stderr


def test_the_collector_is_off_from_the_tui_import_to_the_first_frame():
    """``cli._run_tui`` turns the cycle collector off before importing Textual; the app turns
    it back on once the board's first frame is out (after collecting and freezing the heap),
    and it is on again however the app ends."""
    proc = subprocess.run([sys.executable, "-c", LOAD_DEFAULT_SAMPLE + """
import asyncio, gc
import ksandbox.tui.app as tui_app
seen = {}

def run_tui(session, **opts):
    seen["importing and starting"] = gc.isenabled()
    app = tui_app.make_app(session, ticking=False)
    app.freeze_heap_after_first_frame = True

    async def first_frame():
        async with app.run_test(size=(140, 40)) as pilot:
            for _ in range(20):
                await pilot.pause()
                if gc.isenabled():
                    break
            seen["after the first frame"] = gc.isenabled()
    asyncio.run(first_frame())
    gc.disable()            # as if the app ended before its first frame
    return 0

tui_app.run_tui = run_tui
assert cli._run_tui(session) == 0
seen["after the app"] = gc.isenabled()
print(seen)
"""], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str({"importing and starting": False,
                                       "after the first frame": True, "after the app": True})


def test_the_tui_imports_asyncio_without_tls():
    """``cli._run_tui`` imports asyncio with ``ssl`` reported missing (tui/asyncio_import.py):
    the board's first frame is drawn without OpenSSL loaded, and ``ssl`` is still importable
    afterwards for whoever needs it."""
    proc = subprocess.run([sys.executable, "-c", LOAD_DEFAULT_SAMPLE + """
import sys
assert "asyncio" not in sys.modules     # the sandbox itself does without it
import types
seen = {}

def run_tui(session, **opts):
    # the real app module, imported where _run_tui imports it (this stub stood in for it)
    del sys.modules["ksandbox.tui.app"]
    import asyncio
    import ksandbox.tui.app as tui_app
    app = tui_app.make_app(session, ticking=False)

    async def first_frame():
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            assert app.screen.query_one("#board").border_title == "nodes[5]"
            seen["ssl at the first frame"] = "ssl" in sys.modules
    asyncio.run(first_frame())
    return 0

sys.modules["ksandbox.tui.app"] = types.SimpleNamespace(run_tui=run_tui)
assert cli._run_tui(session) == 0
import ssl
seen["ssl importable"] = ssl.PROTOCOL_TLS_CLIENT is not None
print(seen)
"""], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str({"ssl at the first frame": False, "ssl importable": True})
