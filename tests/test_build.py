"""The site builds from clean, both editions, with warnings as errors; library changes re-execute notebooks."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("build", ROOT / "book" / "tools" / "build.py")
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)


def test_strict_clean_build_of_both_editions(strict_build):
    """`build.py --strict`: clean _build, -W -n --keep-going --all, both editions (the site tests use it)."""
    assert strict_build.returncode == 0, strict_build.log[-6000:]
    for lang in build.EDITIONS:
        assert (build.SITE / lang / "index.html").exists()
    assert (build.SITE / "index.html").exists()


def test_library_change_changes_the_execution_cache(tmp_path):
    lib = tmp_path / "infra_lib"
    (lib / "data").mkdir(parents=True)
    (lib / "core.py").write_text("X = 1\n")
    (lib / "data" / "specs.toml").write_text("a = 1\n")
    before = build.library_fingerprint(lib)
    (lib / "data" / "specs.toml").write_text("a = 2\n")
    after_data = build.library_fingerprint(lib)
    (lib / "core.py").write_text("X = 2\n")
    after_code = build.library_fingerprint(lib)
    assert len({before, after_data, after_code}) == 3


def test_each_edition_caches_under_the_library_fingerprint():
    for lang in build.EDITIONS:
        config, _ = build.edition_config(lang)
        assert Path(config["execute"]["cache"]).name == build.library_fingerprint()
        assert config["execute"]["execute_notebooks"] == "cache"


def test_chinese_edition_config():
    config, toc = build.edition_config("zh")
    sphinx = config["sphinx"]["config"]
    assert sphinx["language"] == "zh_CN" and sphinx["html_search_language"] == "zh"
    assert all(k in sphinx for k in ("nb_code_prompt_show", "nb_code_prompt_hide"))
    assert "搜索" in sphinx["html_theme_options"]["search_bar_text"]
    en_config, en_toc = build.edition_config("en")
    assert str(toc).replace("/zh/", "/en/").count("/en/") == str(en_toc).count("/en/")
    assert "toc_captions" not in config


def test_site_serves_its_own_scripts():
    config, _ = build.edition_config("en")
    sphinx = config["sphinx"]["config"]
    assert not sphinx["mathjax_path"].startswith("http")
    assert all(not url.startswith("http") for url in sphinx["nb_ipywidgets_js"])
