// Chinese search: Sphinx's index holds words that jieba cut at build time, but the browser
// side does not cut the query, so "显存带宽" would find nothing. Before searchtools.js reads
// the query from the URL, split runs of Chinese into words with Intl.Segmenter.
(function () {
  if (!window.location.pathname.endsWith("search.html") || typeof Intl.Segmenter !== "function") return;
  var params = new URLSearchParams(window.location.search);
  var q = params.get("q");
  if (!q || !/[\u4e00-\u9fff]/.test(q)) return;
  var seg = new Intl.Segmenter("zh", { granularity: "word" });
  var words = [];
  for (var part of seg.segment(q)) { if (part.isWordLike) words.push(part.segment); }
  var cut = words.join(" ");
  if (cut && cut !== q) {
    params.set("q", cut);
    window.history.replaceState(null, "", window.location.pathname + "?" + params.toString() + window.location.hash);
  }
})();
