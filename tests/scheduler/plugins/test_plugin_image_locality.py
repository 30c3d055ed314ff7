"""ImageLocality: image sizes scaled by spread, clamped, mapped onto 0..100."""

from schedtest import node, pod, run_scores

from ksandbox.scheduler.plugins import image_locality as il

MB = 1024 * 1024


def test_prefers_the_node_with_the_larger_image():
    nodes = [node("node1", images=[(["gcr.io/40:latest"], 40 * MB),
                                   (["gcr.io/300:latest"], 300 * MB)]),
             node("node2", images=[(["gcr.io/10:latest"], 10 * MB),
                                   (["gcr.io/2000:latest"], 2000 * MB)])]
    p = pod(requests=[{}, {}], images=["gcr.io/40", "gcr.io/300"])
    # node1: (40 + 300) MB * 1/2 spread = 170 MB; (170 - 23) * 100 / (2000 - 23) = 7.
    assert run_scores(il.new, p, nodes) == {"node1": 7, "node2": 0}


def test_an_image_on_every_node_counts_little_and_tags_default_to_latest():
    nodes = [node(f"n{i}", images=[(["nginx:latest"], 500 * MB)]) for i in range(2)]
    p = pod(images=["nginx"])
    # 500 MB * 2/2 = 500 MB; (500 - 23) * 100 / (1000 - 23) = 48 on both.
    assert run_scores(il.new, p, nodes) == {"n0": 48, "n1": 48}
    assert il.normalized_image_name("registry:5000/app") == "registry:5000/app:latest"
