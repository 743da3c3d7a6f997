//! Input that once made the library panic (overflow in debug builds): each now gives a result.

use iprof::Profile;
use iprof::folded::FrameNames;

/// Two samples of one stack whose counts sum past `i64::MAX`: the sum saturates.
#[test]
fn folded_samples_saturate_instead_of_overflowing() {
    let text = r#"{"version":"1.0.0","types":[],"methods":[],
        "samplingProfiles":[{"ctx":"1:0<2:3","records":[9223372036854775807]},
                            {"ctx":"1:0<2:3","records":[1]},
                            {"ctx":"4:0","records":[9223372036854775807]}]}"#;
    let profile = Profile::parse(text).unwrap();
    assert_eq!(
        profile.folded_samples(FrameNames::Ids),
        "2;1 9223372036854775807\n4 9223372036854775807\n"
    );
    // Negative counts saturate at i64::MIN the same way.
    let text = r#"{"version":"1.0.0","types":[],"methods":[],
        "samplingProfiles":[{"ctx":"1:0","records":[-9223372036854775808]},
                            {"ctx":"1:0","records":[-1]}]}"#;
    let profile = Profile::parse(text).unwrap();
    assert_eq!(
        profile.folded_samples(FrameNames::Ids),
        "1 -9223372036854775808\n"
    );
}
