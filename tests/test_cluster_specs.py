"""The pod spec, the DRA claim and the Slurm script chapter 8 shows (infra_lib/data/examples/),
checked by a parser rather than by eye."""
import re
from pathlib import Path

import yaml

EXAMPLES = Path(__file__).resolve().parents[1] / "infra_lib" / "data" / "examples"

# sbatch options as the sbatch man page (Slurm 24.x) spells them; the script may use only these.
SBATCH_OPTIONS = {
    "account", "array", "begin", "chdir", "constraint", "cpus-per-gpu", "cpus-per-task", "dependency",
    "error", "exclusive", "export", "gpu-bind", "gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task",
    "gres", "gres-flags", "job-name", "mail-type", "mail-user", "mem", "mem-per-cpu", "mem-per-gpu", "nodelist",
    "nodes", "ntasks", "ntasks-per-gpu", "ntasks-per-node", "output", "partition", "qos", "reservation",
    "signal", "switches", "time", "exclude", "requeue", "wait-all-nodes",
}


def test_pod_requests_whole_gpus_in_limits():
    pod = yaml.safe_load((EXAMPLES / "gpu-pod.yaml").read_text(encoding="utf-8"))
    assert pod["apiVersion"] == "v1" and pod["kind"] == "Pod" and pod["metadata"]["name"]
    (c,) = pod["spec"]["containers"]
    assert c["name"] and c["image"]
    gpus = c["resources"]["limits"]["nvidia.com/gpu"]
    assert isinstance(gpus, int) and not isinstance(gpus, bool) and gpus >= 1
    # an extended resource may not be overcommitted: a request, if given, equals the limit
    assert c["resources"].get("requests", {}).get("nvidia.com/gpu", gpus) == gpus


def test_dra_claim_and_pod_refer_to_each_other():
    claim, pod = yaml.safe_load_all((EXAMPLES / "dra-claim.yaml").read_text(encoding="utf-8"))
    assert (claim["apiVersion"], claim["kind"]) == ("resource.k8s.io/v1", "ResourceClaim")
    (req,) = claim["spec"]["devices"]["requests"]
    assert req["name"] and req["exactly"]["deviceClassName"] and isinstance(req["exactly"]["count"], int)
    assert (pod["apiVersion"], pod["kind"]) == ("v1", "Pod")
    (rc,) = pod["spec"]["resourceClaims"]
    assert rc["resourceClaimName"] == claim["metadata"]["name"]
    (c,) = pod["spec"]["containers"]
    assert [x["name"] for x in c["resources"]["claims"]] == [rc["name"]]


def _sbatch_lines():
    text = (EXAMPLES / "train.sbatch").read_text(encoding="utf-8")
    assert text.startswith("#!/bin/bash\n")
    lines = [l for l in text.splitlines() if l.startswith("#SBATCH")]
    out = {}
    for line in lines:
        m = re.fullmatch(r"#SBATCH --([a-z-]+)(?:=(\S+))?", line)
        assert m, line
        out[m.group(1)] = m.group(2)
    # sbatch stops reading #SBATCH lines at the first command
    first_cmd = next(i for i, l in enumerate(text.splitlines()) if l and not l.startswith("#"))
    assert all(text.splitlines().index(l) < first_cmd for l in lines)
    return out


def test_sbatch_options_are_real_and_gres_is_well_formed():
    opts = _sbatch_lines()
    assert set(opts) <= SBATCH_OPTIONS, set(opts) - SBATCH_OPTIONS
    assert re.fullmatch(r"gpu(:[A-Za-z0-9_.]+)?:[1-9][0-9]*", opts["gres"])
    assert re.fullmatch(r"(\d+-)?\d{1,2}:\d\d:\d\d", opts["time"])


def test_sbatch_asks_for_64_gpus_one_task_each():
    opts = _sbatch_lines()
    gpus_per_node = int(opts["gres"].rsplit(":", 1)[1])
    assert int(opts["nodes"]) * gpus_per_node == 64
    assert int(opts["ntasks-per-node"]) == gpus_per_node
