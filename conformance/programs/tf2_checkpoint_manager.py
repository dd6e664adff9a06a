import tensorflow as tf
import os


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.l1 = tf.Variable([[1.0, -1.0], [0.5, 2.0]], name="l1")
        self.bias = tf.Variable([0.1, 0.2], name="bias")

    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.l1) + self.bias)


net = Net()
opt = tf.keras.optimizers.SGD(learning_rate=0.1)
ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net)
manager = tf.train.CheckpointManager(ckpt, "./tf_ckpts", max_to_keep=3)

ckpt.restore(manager.latest_checkpoint)
if manager.latest_checkpoint:
    print("Restored from {}".format(manager.latest_checkpoint))
else:
    print("Initializing from scratch.")

x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
y = tf.constant([[1.0, 0.0], [0.0, 1.0]])
for _ in range(10):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(net(x) - y))
    grads = tape.gradient(loss, net.trainable_variables)
    opt.apply_gradients(zip(grads, net.trainable_variables))
    ckpt.step.assign_add(1)
    if int(ckpt.step) % 3 == 0:
        save_path = manager.save()
        print("Saved checkpoint for step {}: {}".format(int(ckpt.step), save_path))
        print("loss {:1.4f}".format(loss.numpy()))

print("checkpoints:", manager.checkpoints)
print("latest:", tf.train.latest_checkpoint("tf_ckpts"))

net2 = Net()
ckpt2 = tf.train.Checkpoint(step=tf.Variable(1), net=net2)
status = ckpt2.restore(manager.latest_checkpoint)
print("restored step:", int(ckpt2.step))
print("same weights:", bool(tf.reduce_all(net2.l1 == net.l1)))
single = tf.train.Checkpoint(net=net).save("single/ckpt")
print("single save:", single, os.path.isfile(single + ".index"))
