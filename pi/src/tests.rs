use super::*;

/// Every release's data folder loads through the seam, is the release it says, and carries what
/// the stages read from it.
#[test]
fn every_release_loads_through_the_seam() {
    for v in PiVersion::ALL {
        let pi = Pi::new(v).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pi.version, v);
        assert_eq!(pi.data.version, v);
        assert_eq!(pi.data.manifest.get_str("piVersion"), Some(v.as_str()));
        let tools = pi.data.tools.as_array().expect("tools.json is a list");
        assert!(tools.iter().any(|t| t.get_str("name") == Some("read")));
        let models = pi.data.catalog.as_array().expect("models.json is a list");
        assert_eq!(
            Some(models.len() as f64),
            pi.data.manifest.get("modelCount").and_then(|n| n.as_f64()),
            "pi {v}: the catalog has the manifest's model count"
        );
        assert!(!pi.data.catalog_by_provider().is_empty());
        for sdk in ["openai", "@anthropic-ai/sdk", "@google/genai"] {
            assert!(!pi.data.sdk_version(sdk).is_empty(), "pi {v}: {sdk}");
        }
        assert!(pi.data.node_version().starts_with('v'));
        assert_eq!(
            pi.data.source_prefix("AI"),
            Some("@earendil-works/pi-ai/dist")
        );
        // Loading again gives the same data (parsed once).
        assert!(std::ptr::eq(Pi::new(v).unwrap().data, pi.data));
    }
}

/// The data differ where the releases differ (a second release is really a second folder).
#[test]
fn releases_have_their_own_data() {
    let old = Pi::new(PiVersion::V0_85_1).unwrap();
    let new = Pi::new(PiVersion::V1_6_0).unwrap();
    assert_eq!(
        old.data.manifest.get("modelCount").and_then(|n| n.as_f64()),
        Some(1354.0)
    );
    assert!(
        new.data.manifest.get("modelCount").and_then(|n| n.as_f64()) > Some(1354.0),
        "1.6.0's catalog is larger"
    );
    assert_ne!(
        old.data.sdk_version("openai"),
        new.data.sdk_version("openai")
    );
}
