"""The documents that map the repository agree with the tree.

Lists typed by hand drift (a month after the eleven chapters landed, README, CONTRIBUTING, the
library's docstring, the registry README and the type guard each missed modules or files). Here
each list is compared with the tree, both ways: everything it names exists, and everything that
exists is named. The library's layer map (``infra_lib.LAYERS``) is the one hand-kept list, and
the tree checks it.
"""
import itertools
import re
from pathlib import Path

import pytest

import infra_lib
from imports import imported

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "infra_lib"


def tree_modules():
    """The library's modules and packages, as chapters import them (``fab``, ``figures``)."""
    modules = {p.stem for p in LIB.glob("*.py") if p.stem != "__init__"}
    packages = {p.parent.name for p in LIB.glob("*/__init__.py")}
    return modules | packages


def mapped_modules():
    return [m for _, (_, modules) in infra_lib.LAYERS.items() for m in modules]


def test_the_layer_map_names_every_module_once():
    mapped = mapped_modules()
    twice = sorted(m for m in set(mapped) if mapped.count(m) > 1)
    assert not twice, f"infra_lib.LAYERS names these in two layers: {twice}"
    missing, stale = tree_modules() - set(mapped), set(mapped) - tree_modules()
    assert not missing, f"modules in infra_lib/ but not in infra_lib.LAYERS: {sorted(missing)}"
    assert not stale, f"infra_lib.LAYERS names modules that do not exist: {sorted(stale)}"
    assert infra_lib.PAGE_LAYER in infra_lib.LAYERS


def module_files():
    """(module or package name, file) for every Python file of the library."""
    for path in sorted(LIB.rglob("*.py")):
        rel = path.relative_to(LIB).parts
        if rel == ("__init__.py",):
            continue
        yield (rel[0] if len(rel) > 1 else path.stem), path, len(rel) > 1


def test_no_module_imports_from_a_layer_above_its_own():
    layer = {m: i for i, (_, (_, modules)) in enumerate(infra_lib.LAYERS.items()) for m in modules}
    upward = []
    for name, path, in_package in module_files():
        for dep in imported(path, in_package):
            if dep in layer and layer[dep] > layer[name]:
                upward.append(f"{path.relative_to(ROOT)} ({name}) imports {dep}")
    assert not upward, "imports that run up the layer map (infra_lib/__init__.py):\n" + "\n".join(upward)


def test_the_upward_import_check_can_fail(tmp_path):
    bad = tmp_path / "units.py"
    bad.write_text("from . import review\n", encoding="utf-8")
    assert imported(bad, False) == {"review"}
    nested = tmp_path / "panel.py"
    nested.write_text("from .. import review, units\nfrom . import style\n", encoding="utf-8")
    assert imported(nested, True) == {"review", "units"}


def _readme_library_row():
    row = next(line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| `infra_lib/` |"))
    return set(re.findall(r"`([\w/]+?)/?`", row))


def test_readme_names_every_module_and_only_modules():
    named = _readme_library_row() - {"infra_lib"}
    helpers = {p.stem for p in itertools.chain(LIB.glob("figures/*.py"), LIB.glob("widgets/*.py"))}
    missing = tree_modules() - named
    assert not missing, f"README.md's infra_lib/ row does not name: {sorted(missing)}"
    unknown = named - tree_modules() - helpers
    assert not unknown, f"README.md's infra_lib/ row names what is not in infra_lib/: {sorted(unknown)}"


def test_registry_readme_names_every_registry_file():
    folder = LIB / "data" / "registry"
    text = (folder / "README.md").read_text(encoding="utf-8")
    table = [line for line in text.splitlines() if line.startswith("| `")]
    named = set(re.findall(r"`([\w.]+\.toml)`", "\n".join(table)))
    files = {p.name for p in folder.glob("*.toml")}
    assert files - named == set(), f"registry files missing from its README's table: {sorted(files - named)}"
    assert named - files == set(), f"its README's table names files that do not exist: {sorted(named - files)}"


PATH = re.compile(r"(?<![\w./])((?:infra_lib|tests|book|notebooks|\.ci)/[\w./{},*<>-]*[\w}])")


def named_paths(text):
    """Repository paths a document names, with ``{en,zh}`` expanded; patterns (``NN_``, ``<topic>``,
    ``*``) are left out."""
    for raw in PATH.findall(text):
        if any(c in raw for c in "<>*") or "NN_" in raw:
            continue
        parts = re.split(r"\{([^{}]*)\}", raw)
        choices = [p.split(",") if i % 2 else [p] for i, p in enumerate(parts)]
        for combo in itertools.product(*choices):
            yield "".join(combo).rstrip(".")


@pytest.mark.parametrize("doc", ["README.md", "CONTRIBUTING.md", "infra_lib/data/registry/README.md"])
def test_every_path_a_document_names_exists_in_the_repository(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert "../shared" not in text and "shared/reference" not in text, (
        f"{doc} sends readers to a file outside the repository (../shared/...): say it in the repository's own words")
    missing = sorted({p for p in named_paths(text) if not (ROOT / p).exists()})
    assert not missing, f"{doc} names paths that do not exist: {missing}"


def test_the_path_finder_sees_what_it_should():
    found = set(named_paths("see `infra_lib/data/registry/README.md` and book/{en,zh}/glossary.md, "
                            "not notebooks/en/NN_name.md or infra_lib/widgets/<topic>.py."))
    assert found == {"infra_lib/data/registry/README.md", "book/en/glossary.md", "book/zh/glossary.md"}


GLUED = re.compile(r"""\{glue:(?:text|figure|md|math)?\}`([A-Za-z]\w*)|```\{glue:figure\}\s+([A-Za-z]\w*)"""
                   r"""|\bglue\(f?["']([A-Za-z]\w*)|\bExercise\(["']([A-Za-z]\w*)""")


def glue_prefixes(text):
    """The prefix (the part before the first underscore) of every key a page glues or shows."""
    return {next(g for g in m.groups() if g).split("_")[0] for m in GLUED.finditer(text)}


def test_each_chapter_glues_under_one_prefix_of_its_own():
    """CONTRIBUTING's rule for keys: one prefix per chapter (the twins share it), none shared."""
    owner = {}
    for lang in ("en", "zh"):
        for page in sorted((ROOT / "notebooks" / lang).glob("*.md")):
            prefixes = glue_prefixes(page.read_text(encoding="utf-8"))
            assert len(prefixes) == 1, f"{page.relative_to(ROOT)} glues keys under several prefixes: {sorted(prefixes)}"
            (prefix,) = prefixes
            assert owner.setdefault(prefix, page.name) == page.name, (
                f"notebooks/*/{page.name} and {owner[prefix]} both glue keys starting {prefix}_")


def test_the_prefix_reader_sees_every_form():
    text = ('glue("ch4_x", 1)\nglue(f"ch4_{tag}_y", 2)\nExercise("ch4_ex1", {})\n'
            'a {glue:text}`ch4_x:.1f` b\n```{glue:figure} ch4_fig\n:name: x\n```\n{glue:}`ov_z`')
    assert glue_prefixes(text) == {"ch4", "ov"}
