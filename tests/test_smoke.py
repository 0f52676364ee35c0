import treexc


def test_train_predict_roundtrip(tmp_path):
    lines = []
    for i in range(200):
        lines.append(f"__label__sport ball goal team match{i % 7}")
        lines.append(f"__label__food bread cheese taste dish{i % 5}")
    path = tmp_path / "train.txt"
    path.write_text("\n".join(lines) + "\n")
    model = treexc.train_supervised(input=str(path), epoch=5, lr=0.5, thread=1)
    labels, probs = model.predict("ball goal team")
    assert labels == ("__label__sport",)
    assert probs[0] > 0.5
    model.save_model(str(tmp_path / "m.bin"))
    again = treexc.load_model(str(tmp_path / "m.bin"))
    assert again.predict("bread cheese")[0] == ("__label__food",)
