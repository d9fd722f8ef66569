/** An error the reader can act on, announced to screen readers, with a way to clear it. */
import { useT } from "../lib/i18n";

export function DismissibleAlert({ message, onDismiss }: { message: string | null | undefined; onDismiss: () => void }) {
  const { t } = useT();
  if (!message) return null;
  return (
    <p class="alert" role="alert">
      {message}{" "}
      <button type="button" class="link-button" onClick={onDismiss}>
        {t("common.dismiss")}
      </button>
    </p>
  );
}
