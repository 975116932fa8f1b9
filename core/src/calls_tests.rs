use super::*;

#[test]
fn call_refs_parse() {
    assert_eq!(CallRef::parse("3"), CallRef::Index(3));
    assert_eq!(CallRef::parse("next"), CallRef::Next);
    assert_eq!(
        CallRef::parse("ab12cd34"),
        CallRef::Entry("ab12cd34".into())
    );
    assert_eq!(
        CallRef::parse("12345678"),
        CallRef::Entry("12345678".into())
    );
}
