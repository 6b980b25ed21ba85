import random, pathlib, sys
rng = random.Random(14)
out = pathlib.Path(sys.argv[1]); (out).mkdir(parents=True, exist_ok=True)
topics = ["river","mountain","harbour","forest","valley","bridge","castle","meadow","island","canyon"]
extra = ["lantern","copper","willow","granite","saffron","falcon","orchard","glacier","ember","quartz","marble","cedar"]
names = []
for i in range(1, 29):
    name = f"page{i:02d}"
    names.append(name)
    words = rng.sample(topics, 3) + rng.sample(extra, 3)
    title = f"Entry {i}: the {words[0]} of {words[1]}".title()
    body = "\n\n".join(
        " ".join(rng.choice(words + ["the","and","a","of","near","old","new","north","south"]) for _ in range(40)).capitalize() + "."
        for _ in range(3))
    (out / f"{name}.rst").write_text(f"{title}\n{'=' * len(title)}\n\n{body}\n\nSection about {words[2]}\n{'-'*(14+len(words[2]))}\n\nMore on {words[3]} and {words[4]}.\n")
(out / "index.rst").write_text("Atlas\n=====\n\nA small documentation site for tests.\n\n.. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   {n}\n" for n in names))
(out / "conf.py").write_text('project = "Atlas"\nhtml_theme = "basic"\nhtml_copy_source = False\nhtml_show_sourcelink = False\nhtml_show_sphinx = False\nhtml_use_index = False\nhtml_domain_indices = False\nhtml_last_updated_fmt = None\nlanguage = "en"\n')
