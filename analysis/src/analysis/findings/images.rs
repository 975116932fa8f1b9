//! Images omitted or replaced.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let pi = cx.pi;
    let p = cx.p;
    let model = cx.model;
    let images = p
        .agent_messages
        .iter()
        .filter(|m| matches!(m.get_str("role"), Some("user" | "toolResult")))
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|b| b.get_str("type") == Some("image"))
        .count();
    if images > 0 {
        let blocked = p.settings.block_images();
        let no_vision = model.is_some_and(|m| !m.supports_images());
        if blocked || no_vision {
            list.push(
                "images-omitted",
                Severity::Warning,
                format!("{} not sent", plural(images, "image", "images")),
                if blocked {
                    format!(
                        "images.blockImages is set: {} replaced by \"{}\".",
                        plural(images, "image", "images"),
                        pi.data.string("sdk", "imageReadingDisabled")
                    )
                } else {
                    format!(
                        "{} has no image input: {} replaced by a placeholder text.",
                        model.map(|m| m.reference()).unwrap_or_default(),
                        plural(images, "image", "images")
                    )
                },
                Some(if blocked {
                    StageId::ConvertToLlm
                } else {
                    StageId::TransformMessages
                }),
                None,
            );
        }
    }
}
